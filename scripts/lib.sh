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

# hb_ensure_debs PKG... installs the Debian packages that are missing, with
# one `apt-get update` and one `apt-get install -y`; when all are installed it
# runs neither. It needs root (or password-less sudo) only when something is
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
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update >&2 ||
		hb_log "warning: apt-get update failed; trying the install with the package lists there are"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q install -y "${missing[@]}" >&2 ||
		hb_die "apt-get install -y ${missing[*]} failed"
	for pkg in "${missing[@]}"; do
		hb_deb_installed "$pkg" || hb_die "Debian package $pkg is still not installed after apt-get install"
	done
}
