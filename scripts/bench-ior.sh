#!/usr/bin/env bash
# bench-ior.sh: hpcbench ior -a POSIX -F against the floor (IOR's loop in
# plain system calls, scripts/iorloop.c) and fio, file per process.
#
# For each transfer size in XFERS, each of buffered and O_DIRECT and each
# process count in PROCS, REPS times, back to back:
#
#   iorloop -p P -b SIZE -t XFER -o DIR/loop -w -r [-D]
#   hpcbench launch -n P -- hpcbench ior -a POSIX -F -b SIZE -t XFER -w -r [--posix.odirect]
#   fio --ioengine=psync --numjobs=P --rw=write --bs=XFER --size=SIZE [--direct=1]   then --rw=read
#   IOR_C -a POSIX -F -b SIZE -t XFER -w -r [--posix.odirect] under mpiexec -n P, if IOR_C is set
#
# and prints, per cell (transfer size, buffered or direct, processes,
# phase), the median bandwidth of each in MiB/s and the median of each
# round's own ratios hpcbench/floor and hpcbench/fio (the commands of a
# round ran back to back, so drift of a shared machine moves them alike;
# each round starts with the next command in turn, so none always goes
# first).
#
# iorloop does what IOR does for a phase and no more: barrier, open
# (O_CREAT|O_TRUNC to write), SIZE/XFER pwrite(2)s or pread(2)s of XFER
# bytes from one 4 KiB-aligned buffer filled before the timing, close;
# its bandwidth is IOR's, P*SIZE over the latest close minus the earliest
# open. With O_DIRECT and transfers of 64 KiB and more hpcbench's buffer
# is in transparent huge pages (--posix.basepages turns that off), and so
# is the floor's (iorloop -H): from base pages an O_DIRECT transfer reaches
# the device in many more segments (1 MiB reads here: about 1.7 GB/s
# against 3.9), and a floor in base pages would be no floor. IOR C's and
# fio's buffers are in base pages, so hb/IOR and hb/fio include that. fio's is its own runtime of the job, with --fallocate=none (IOR
# does not preallocate, and writing into preallocated extents is faster)
# and --invalidate=0 (IOR does not drop the page cache before reading, so
# all read what the write left in it; with O_DIRECT none uses it).
#
# A command that fails or prints no figure ends the script with its
# error. Target: hpcbench >= 0.98 x the floor in every cell; with STRICT=1
# the script exits 1 when a cell misses it (after printing the table).
#
# The files go to DIR (default /var/tmp, which must support O_DIRECT:
# tmpfs does not) and are removed. Progress goes to stderr, the table to
# stdout. Installs fio and gcc when missing (needs root then).
#
# Environment:
#   REPS=5                    rounds per cell
#   WARMUP=1                  rounds per cell run first and not counted (the
#                             first writes to a fresh directory are slower)
#   XFERS="1m 4k"             transfer sizes; XFER@SIZE also sets the cell's bytes
#                             per process (4k@8m); with IOR_C the default adds
#                             4k@8m, a short phase, where what runs between the
#                             first open and the last close besides the transfers
#                             shows: its table then also prints the open and close
#                             columns of hpcbench and IOR C side by side
#   SIZE_1m=1g SIZE_4k=256m   bytes per process for each transfer size (-b, fio --size)
#   DIRECT="0 1"              0 = buffered, 1 = O_DIRECT
#   PROCS="1 2"               process counts
#   DIR=/var/tmp              where the files go
#   THREADS=2                 threads in each floor process (iorloop -T), the
#                             others idle: an MPI rank's shape (IOR under
#                             Debian's MPICH has 2, hpcbench's Go ranks
#                             several), which costs a cached 4 KiB read a
#                             quarter of its speed here (fdget's reference on
#                             the file); THREADS=1 for the single-threaded floor
#   HPCBENCH=PATH             benchmark this binary instead of building ./cmd/hpcbench
#   IOR_C=PATH                also run IOR (the C original) from PATH under MPIEXEC
#   MPIEXEC=mpiexec           the launcher for IOR_C
#   WARM=1                    0: no untimed write of the cell's size before each
#                             buffered command (see warm below)
#   STRICT=0                  1: exit 1 when a cell is below 0.98 x the floor
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-1}
IOR_C=${IOR_C:-}
default_xfers="1m 4k"
[[ -n $IOR_C ]] && default_xfers+=" 4k@8m"
read -r -a xfers <<<"${XFERS:-$default_xfers}"
read -r -a directs <<<"${DIRECT:-0 1}"
read -r -a procs <<<"${PROCS:-1 2}"
DIR=${DIR:-/var/tmp}
STRICT=${STRICT:-0}
WARM=${WARM:-1}
MPIEXEC=${MPIEXEC:-$(command -v mpiexec.mpich || echo mpiexec)} # MPICH's Hydra: Open MPI may own plain mpiexec
target=0.98
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { printf '%s: REPS=%s: want a whole number >= 1\n' "${0##*/}" "$REPS" >&2; exit 2; }
[[ $WARMUP =~ ^[0-9]+$ ]] || { printf '%s: WARMUP=%s: want a whole number >= 0\n' "${0##*/}" "$WARMUP" >&2; exit 2; }
[[ $WARM == [01] ]] || { printf '%s: WARM=%s: want 0 or 1\n' "${0##*/}" "$WARM" >&2; exit 2; }
[[ $STRICT == [01] ]] || { printf '%s: STRICT=%s: want 0 or 1\n' "${0##*/}" "$STRICT" >&2; exit 2; }

command -v fio >/dev/null 2>&1 || hb_ensure_debs fio
command -v fio >/dev/null 2>&1 || hb_die "fio not found: install Debian package fio"
command -v gcc >/dev/null 2>&1 || hb_ensure_debs gcc
if [[ -n $IOR_C ]]; then
	[[ -x $IOR_C ]] || hb_die "IOR_C=$IOR_C: not an executable file"
	command -v "$MPIEXEC" >/dev/null 2>&1 || hb_die "MPIEXEC=$MPIEXEC: not found (IOR_C needs it)"
fi

tmp=$(mktemp -d)
work=$(mktemp -d "$DIR/hpcbench-bench-ior.XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT

gcc -O2 -Wall -pthread -o "$tmp/iorloop" scripts/iorloop.c
hpcbench=${HPCBENCH:-}
if [[ -z $hpcbench ]]; then
	hb_ensure_go
	hb_log "building hpcbench"
	CGO_ENABLED=0 go build -o "$tmp/hpcbench" ./cmd/hpcbench
	hpcbench=$tmp/hpcbench
fi

# warm, in a buffered cell with WARM=1, writes and removes P files of
# SIZE (untimed) just before a command, so that the page cache it fills
# gets memory freed a moment ago. On a VM that reports free memory to its
# host (virtio-balloon free page reporting), memory left free for a few
# seconds goes back to the host, and the first writes into it fault it
# back in at a few hundred MB/s: without this, whichever command came
# after a pause ran at a tenth of its speed.
warm() {
	((WARM && !d)) || return 0
	"$tmp/iorloop" -p "$p" -b "$size" -t "$x" -o "$work/warm" -w >"$tmp/warm.out" 2>&1 || fail "iorloop (warm-up)" "$tmp/warm.out"
}

# fail NAME FILE ends the script with NAME's last lines of output.
fail() {
	hb_die "$1 failed: $(tail -n 3 "$2" | tr '\n' ' ')"
}

# figure FILE NAME prints the number in FILE (one line), or ends the script.
figure() {
	local v
	v=$(cat "$1")
	[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || hb_die "$2 printed no bandwidth (got '$v')"
	printf '%s\n' "$v"
}

# fio_bw RW XFER SIZE DIRECT P prints fio's aggregate bandwidth in MiB/s.
fio_bw() {
	fio --name=bench --directory="$work" --rw="$1" --bs="$2" --size="$3" --direct="$4" \
		--numjobs="$5" --group_reporting --ioengine=psync --fallocate=none --invalidate=0 \
		--output-format=terse --terse-version=3 >"$tmp/fio.out" 2>&1 || fail fio "$tmp/fio.out"
	# terse v3: field 7 is read bandwidth, 48 write bandwidth, in KiB/s.
	awk -F';' -v rw="$1" 'NF > 48 { printf "%.2f\n", ((rw == "read") ? $7 : $48) / 1024; exit }' "$tmp/fio.out" >"$tmp/fio.bw"
	figure "$tmp/fio.bw" fio
}

# result_bw FILE PHASE NAME prints the bw(MiB/s) of the first row PHASE
# of IOR's "Results:" table in FILE; result_col FILE PHASE COLUMN NAME its
# COLUMNth field (7 open(s), 9 close(s), to the microsecond: IOR's CSV has
# four decimals).
result_bw() { result_col "$1" "$2" 2 "$3"; }
result_col() {
	awk -v ph="$2" -v c="$3" '/^Results:/ { in_results = 1 } in_results && $1 == ph { print $c; exit }' "$1" >"$tmp/col"
	figure "$tmp/col" "$4"
}

median() {
	sort -g | awk '{ v[n++] = $1 } END { if (n == 0) { print "-"; exit } print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# bytes SIZE prints a size such as 4k or 1m in bytes.
bytes() {
	local n=${1%[kKmMgG]}
	case $1 in
	*[kK]) echo $((n << 10)) ;;
	*[mM]) echo $((n << 20)) ;;
	*[gG]) echo $((n << 30)) ;;
	*) echo "$n" ;;
	esac
}

# column C prints column C of the pairs file, pair_ratio A B the ratio B/A
# of each round; both through median.
column() { awk -v c="$1" '{ print $c }' "$tmp/pairs" | median; }
ocolumn() { awk -v c="$1" '{ print $c }' "$tmp/oc" | median; }
pair_ratio() { awk -v a="$1" -v b="$2" '$a > 0 { print $b / $a }' "$tmp/pairs" | median; }

# run_floor, run_hpcbench, run_fio and run_IOR run one command of a round
# for the cell in x, size, d, p and set its write and read figures (lw lr,
# hw hr, fw fr, iw ir).
run_floor() {
	"$tmp/iorloop" -p "$p" -b "$size" -t "$x" -o "$work/loop" -w -r -T "$THREADS" "${loopdirect[@]}" \
		>"$tmp/loop.out" 2>&1 || fail iorloop "$tmp/loop.out"
	awk '$1 == "write" { print $3 }' "$tmp/loop.out" >"$tmp/lw"
	awk '$1 == "read" { print $3 }' "$tmp/loop.out" >"$tmp/lr"
	lw=$(figure "$tmp/lw" iorloop)
	lr=$(figure "$tmp/lr" iorloop)
}

run_hpcbench() {
	"$hpcbench" launch -n "$p" -- "$hpcbench" ior -a POSIX -F -b "$size" -t "$x" -w -r \
		"${odirect[@]}" -o "$work/hb" >"$tmp/hb.out" 2>"$tmp/hb.err" ||
		fail "hpcbench ior" "$tmp/hb.err"
	hw=$(result_bw "$tmp/hb.out" write "hpcbench ior")
	hr=$(result_bw "$tmp/hb.out" read "hpcbench ior")
	hwo=$(result_col "$tmp/hb.out" write 7 "hpcbench ior") hwc=$(result_col "$tmp/hb.out" write 9 "hpcbench ior")
	hro=$(result_col "$tmp/hb.out" read 7 "hpcbench ior") hrc=$(result_col "$tmp/hb.out" read 9 "hpcbench ior")
}

run_fio() {
	fw=$(fio_bw write "$x" "$size" "$d" "$p")
	fr=$(fio_bw read "$x" "$size" "$d" "$p")
	rm -f "$work"/bench.*
}

run_IOR() {
	"$MPIEXEC" -n "$p" "$IOR_C" -a POSIX -F -b "$size" -t "$x" -w -r "${odirect[@]}" \
		-o "$work/ior" >"$tmp/ior.out" 2>&1 || fail IOR "$tmp/ior.out"
	iw=$(result_bw "$tmp/ior.out" write IOR)
	ir=$(result_bw "$tmp/ior.out" read IOR)
	iwo=$(result_col "$tmp/ior.out" write 7 IOR) iwc=$(result_col "$tmp/ior.out" write 9 IOR)
	iro=$(result_col "$tmp/ior.out" read 7 IOR) irc=$(result_col "$tmp/ior.out" read 9 IOR)
}

tools=(floor hpcbench fio)
[[ -n $IOR_C ]] && tools+=(IOR)

printf '%s\n' "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rows=() ocrows=()
missed=0
for xcell in "${xfers[@]}"; do
	x=${xcell%@*}
	size_var="SIZE_$x"
	size=${!size_var:-}
	[[ $xcell == *@* ]] && size=${xcell#*@}
	if [[ -z $size ]]; then
		case $x in
		1m) size=1g ;;
		*) size=256m ;;
		esac
	fi
	for d in "${directs[@]}"; do
		odirect=() loopdirect=()
		if ((d)); then
			odirect=(--posix.odirect) loopdirect=(-D)
			# hpcbench's O_DIRECT buffer is in huge pages from 64 KiB
			# (aiori.HugeBufferMin); the floor's must be too.
			(($(bytes "$x") >= 65536)) && loopdirect+=(-H)
		fi
		for p in "${procs[@]}"; do
			# pairs: floor write, hpcbench write, fio write, ior write, then the same for read
			: >"$tmp/pairs"
			: >"$tmp/oc"
			for ((rep = 1 - WARMUP; rep <= REPS; rep++)); do
				cell="xfer $x direct=$d P=$p run $rep/$REPS"
				((rep > 0)) || cell="xfer $x direct=$d P=$p warm-up"
				iw=0 ir=0
				# Each round starts one command further on, so that no
				# command always runs first or right after another.
				for ((k = 0; k < ${#tools[@]}; k++)); do
					tool=${tools[$(((k + rep + WARMUP) % ${#tools[@]}))]}
					hb_log "$cell: $tool"
					warm
					"run_$tool"
				done
				((rep > 0)) || continue
				printf '%s %s %s %s %s %s %s %s\n' "$lw" "$hw" "$fw" "$iw" "$lr" "$hr" "$fr" "$ir" >>"$tmp/pairs"
				[[ -n $IOR_C ]] && printf '%s %s %s %s %s %s %s %s\n' "$hwo" "$iwo" "$hwc" "$iwc" "$hro" "$iro" "$hrc" "$irc" >>"$tmp/oc"
			done
			for phase in write read; do
				c=1
				[[ $phase == read ]] && c=5
				l=$(column $c) h=$(column $((c + 1))) f=$(column $((c + 2)))
				hl=$(pair_ratio $c $((c + 1))) hf=$(pair_ratio $((c + 2)) $((c + 1)))
				row=$(printf '%-9s %-6s %-5s %-6s %10.1f %10.1f %10.1f %8.3f %8.3f' \
					"$x@$size" "$d" "$p" "$phase" "$l" "$h" "$f" "$hl" "$hf")
				if [[ -n $IOR_C ]]; then
					row+=$(printf ' %10.1f %8.3f' "$(column $((c + 3)))" "$(pair_ratio $((c + 3)) $((c + 1)))")
				fi
				if awk -v r="$hl" -v t="$target" 'BEGIN { exit !(r < t) }'; then
					row+="  < $target"
					missed=1
				fi
				rows+=("$row")
				if [[ -n $IOR_C ]]; then
					ocrows+=("$(printf '%-5s %-6s %-5s %-5s %-6s %10.6f %10.6f %10.6f %10.6f' "$x" "$size" "$d" "$p" "$phase" \
						"$(ocolumn $c)" "$(ocolumn $((c + 1)))" "$(ocolumn $((c + 2)))" "$(ocolumn $((c + 3)))")")
				fi
			done
		done
	done
done
printf '%s\n' "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

printf '\nhpcbench ior -a POSIX -F vs the floor (scripts/iorloop.c, %s threads a process) and fio (psync), median of %s rounds, MiB/s\n' "$THREADS" "$REPS"
printf 'hb/floor and hb/fio are medians of each round'"'"'s own ratio; target hb/floor >= %s\n' "$target"
header=$(printf '%-9s %-6s %-5s %-6s %10s %10s %10s %8s %8s' xfer@size direct procs phase floor hpcbench fio hb/floor hb/fio)
[[ -n $IOR_C ]] && header+=$(printf ' %10s %8s' IOR hb/IOR)
printf '%s\n' "$header"
printf '%s\n' "${rows[@]}"
if [[ -n $IOR_C ]]; then
	printf '\nopen(s) and close(s) columns, hpcbench and IOR C, median of %s rounds\n' "$REPS"
	printf '%-5s %-6s %-5s %-5s %-6s %10s %10s %10s %10s\n' xfer size direct procs phase hb-open IOR-open hb-close IOR-close
	printf '%s\n' "${ocrows[@]}"
fi
if ((STRICT && missed)); then
	hb_die "a cell is below $target x the floor"
fi
