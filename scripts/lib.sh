# shellcheck shell=bash
# lib.sh: helpers shared by the scripts in this directory. Source it, don't
# run it: `. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"`. It defines functions
# only and changes nothing when sourced.

# hb_die prints "SCRIPT: MESSAGE" on stderr and exits 1.
hb_die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# hb_log prints "==> MESSAGE" on stderr, so a script's stdout stays its result.
hb_log() {
	printf '==> %s\n' "$*" >&2
}

# hb_repo_root prints the absolute path of the repository (the parent of
# scripts/), wherever the caller's working directory is.
hb_repo_root() {
	(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
}

# hb_ensure_go makes sure `go` is on PATH, adding /usr/local/go/bin (where
# the project's machines have it) when it is not.
hb_ensure_go() {
	if command -v go >/dev/null 2>&1; then
		return 0
	fi
	if [[ -x /usr/local/go/bin/go ]]; then
		PATH=/usr/local/go/bin:$PATH
		export PATH
		return 0
	fi
	hb_die "go not found in PATH or /usr/local/go/bin: install Go (see go.mod for the version)"
}

# hb_deb_installed PKG succeeds when the Debian package PKG is installed.
hb_deb_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# hb_lock_holder FILE prints the pid of a process holding a lock on FILE
# (an fcntl lock, as apt and dpkg take, or a flock), as /proc/locks lists
# it, or nothing when FILE is not locked or cannot be checked.
hb_lock_holder() {
	local file=$1 major minor inode
	[[ -e $file && -r /proc/locks ]] || return 0
	read -r major minor inode < <(stat -Lc '%Hd %Ld %i' "$file" 2>/dev/null) || return 0
	[[ -n $inode ]] || return 0
	# /proc/locks: "1: POSIX  ADVISORY  WRITE PID MAJ:MIN:INODE START END",
	# device numbers in hex; "1: -> ..." lines are waiters, not holders.
	awk -v id="$(printf '%02x:%02x:%s' "$major" "$minor" "$inode")" \
		'$2 != "->" { for (i = 2; i <= NF; i++) if ($i == id) { print $(i - 1); exit } }' /proc/locks
}

# hb_wait_apt_locks waits while another process holds one of the locks apt
# and dpkg take (another apt-get, unattended-upgrades), so that installing
# does not fail with "Could not get lock". It says once what it waits for,
# checks every 2 s, and gives up with hb_die after HPCBENCH_APT_LOCK_WAIT
# seconds (default 300). HB_APT_LOCKS overrides the list of lock files.
hb_wait_apt_locks() {
	local limit=${HPCBENCH_APT_LOCK_WAIT:-300} start=$SECONDS said=0 f pid busy
	local locks=${HB_APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}
	while :; do
		busy=()
		for f in $locks; do
			pid=$(hb_lock_holder "$f")
			if [[ -n $pid ]]; then
				busy+=("$f (pid $pid $(cat "/proc/$pid/comm" 2>/dev/null || echo '?'))")
			fi
		done
		if ((${#busy[@]} == 0)); then
			if ((said)); then
				hb_log "package locks free after $((SECONDS - start))s"
			fi
			return 0
		fi
		if ((SECONDS - start >= limit)); then
			hb_die "another package manager still holds ${busy[*]} after ${limit}s; let it finish, or set HPCBENCH_APT_LOCK_WAIT (seconds)"
		fi
		if ((!said)); then
			hb_log "waiting up to ${limit}s for another package manager to finish: ${busy[*]} locked"
			said=1
		fi
		sleep 2
	done
}

# hb_ensure_debs PKG... installs the Debian packages that are missing, with
# one `apt-get update` and one `apt-get install -y`, each after waiting for
# another package manager's locks (hb_wait_apt_locks); when all are
# installed it runs neither. It needs root (or password-less sudo) only when something is
# missing. On a system without dpkg it warns and returns: the caller's own
# checks then report what is missing.
hb_ensure_debs() {
	local pkg missing=()
	if ! command -v dpkg-query >/dev/null 2>&1; then
		printf '%s: warning: not a Debian system; make sure these are installed: %s\n' \
			"${0##*/}" "$*" >&2
		return 0
	fi
	for pkg in "$@"; do
		hb_deb_installed "$pkg" || missing+=("$pkg")
	done
	if ((${#missing[@]} == 0)); then
		return 0
	fi
	local sudo=()
	if ((EUID != 0)); then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			hb_die "missing Debian packages: ${missing[*]}; run as root, or: sudo apt-get install -y ${missing[*]}"
		fi
	fi
	hb_log "installing Debian packages: ${missing[*]}"
	# Another apt may be running (unattended-upgrades on a fresh machine):
	# wait for its locks rather than fail, and let apt-get itself wait for
	# the dpkg lock too, in case another grabs it between the two steps.
	hb_wait_apt_locks
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update >&2 ||
		hb_log "warning: apt-get update failed; trying the install with the package lists there are"
	hb_wait_apt_locks
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=60 install -y "${missing[@]}" >&2 ||
		hb_die "apt-get install -y ${missing[*]} failed"
	for pkg in "${missing[@]}"; do
		hb_deb_installed "$pkg" || hb_die "Debian package $pkg is still not installed after apt-get install"
	done
}

# hb_hpcbench DIR prints the hpcbench binary a benchmark script measures:
# $HPCBENCH made absolute when set (it must be executable), else one built
# from ./cmd/hpcbench into DIR (CGO_ENABLED=0, as the README builds it).
# Progress goes to stderr.
hb_hpcbench() {
	if [[ -n ${HPCBENCH:-} ]]; then
		local abs
		abs=$(cd "$(dirname "$HPCBENCH")" && pwd -P)/$(basename "$HPCBENCH")
		[[ -x $abs ]] || hb_die "HPCBENCH=$HPCBENCH is not an executable"
		printf '%s\n' "$abs"
		return
	fi
	hb_ensure_go
	hb_log "go build -o $1/hpcbench ./cmd/hpcbench"
	CGO_ENABLED=0 go build -o "$1/hpcbench" ./cmd/hpcbench || hb_die "building hpcbench failed (go build ./cmd/hpcbench)"
	printf '%s\n' "$1/hpcbench"
}
