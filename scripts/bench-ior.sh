#!/usr/bin/env bash
# bench-ior.sh: hpcbench ior side by side with fio, sequential write then
# read of the same file size in the same transfer size, one process.
#
# For each transfer size in XFERS and each of buffered and O_DIRECT, REPS
# times, back to back:
#
#   fio --ioengine=psync --rw=write --bs=XFER --size=SIZE [--direct=1]   then --rw=read
#   hpcbench ior -a POSIX -F -b SIZE -t XFER -w -r [--posix.odirect]
#
# and prints, per case, the median bandwidth of each in MiB/s, the ratio of
# the medians hpcbench/fio, and the median of each pair's own ratio (the
# two ran back to back, so drift of a shared machine moves both alike).
# IOR's bandwidth spans open to close; fio's its own runtime of the job;
# with psync and no fsync both are the transfer loop plus microseconds.
# fio runs with --fallocate=none (IOR does not preallocate, and writing
# into preallocated extents is faster) and --invalidate=0 (IOR does not
# drop the page cache before reading, so both read what the write left in
# it; with O_DIRECT neither uses it).
#
# The files go to DIR (default /var/tmp, which must support O_DIRECT:
# tmpfs does not) and are removed. Progress goes to stderr, the table to
# stdout. Installs fio when missing (needs root then).
#
# Environment:
#   REPS=5              runs per case
#   XFERS="1m 4k"       transfer sizes
#   SIZE_1m=1g SIZE_4k=256m   file size per transfer size (fio and -b)
#   DIR=/var/tmp        where the files go
#   DIRECT="0 1"        0 = buffered, 1 = O_DIRECT
#   HPCBENCH=PATH       benchmark this binary instead of building ./cmd/hpcbench
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
read -r -a xfers <<<"${XFERS:-1m 4k}"
read -r -a directs <<<"${DIRECT:-0 1}"
DIR=${DIR:-/var/tmp}

command -v fio >/dev/null 2>&1 || hb_ensure_debs fio
command -v fio >/dev/null 2>&1 || hb_die "fio not found: install Debian package fio"

tmp=$(mktemp -d)
work=$(mktemp -d "$DIR/hpcbench-bench-ior.XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT

hpcbench=${HPCBENCH:-}
if [[ -z $hpcbench ]]; then
	hb_ensure_go
	hb_log "building hpcbench"
	CGO_ENABLED=0 go build -o "$tmp/hpcbench" ./cmd/hpcbench
	hpcbench=$tmp/hpcbench
fi

# fio_bw RW XFER SIZE DIRECT prints fio's bandwidth in MiB/s.
fio_bw() {
	fio --name=bench --filename="$work/fio" --rw="$1" --bs="$2" --size="$3" --direct="$4" \
		--ioengine=psync --numjobs=1 --fallocate=none --invalidate=0 --output-format=terse --terse-version=3 >"$tmp/fio.out" 2>&1 ||
		hb_die "fio failed: $(tail -n 3 "$tmp/fio.out" | tr '\n' ' ')"
	# terse v3: field 7 is read bandwidth, 48 write bandwidth, in KiB/s.
	awk -F';' -v rw="$1" 'NF > 48 { printf "%.2f\n", ((rw == "read") ? $7 : $48) / 1024; exit }' "$tmp/fio.out"
}

median() {
	sort -g | awk '{ v[n++] = $1 } END { if (n == 0) { print "-"; exit } print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

printf '%s\n' "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
results=()
for x in "${xfers[@]}"; do
	size_var="SIZE_$x"
	size=${!size_var:-}
	if [[ -z $size ]]; then
		case $x in
		1m) size=1g ;;
		*) size=256m ;;
		esac
	fi
	for d in "${directs[@]}"; do
		: >"$tmp/pairs"
		for ((rep = 1; rep <= REPS; rep++)); do
			hb_log "xfer $x direct=$d run $rep/$REPS: fio"
			fw=$(fio_bw write "$x" "$size" "$d")
			fr=$(fio_bw read "$x" "$size" "$d")
			rm -f "$work/fio"
			hb_log "xfer $x direct=$d run $rep/$REPS: hpcbench ior"
			odirect=()
			((d)) && odirect=(--posix.odirect)
			"$hpcbench" ior -a POSIX -F -b "$size" -t "$x" -w -r "${odirect[@]}" -o "$work/hb" \
				-O summaryFormat=CSV >"$tmp/hb.out" 2>"$tmp/hb.err" ||
				hb_die "hpcbench ior failed: $(tail -n 3 "$tmp/hb.err" | tr '\n' ' ')"
			hw=$(awk -F, '$1 == "write" { print $2; exit }' "$tmp/hb.out")
			hr=$(awk -F, '$1 == "read" { print $2; exit }' "$tmp/hb.out")
			printf '%s %s %s %s\n' "$fw" "$hw" "$fr" "$hr" >>"$tmp/pairs"
		done
		for phase in write read; do
			if [[ $phase == write ]]; then a=1 b=2; else a=3 b=4; fi
			f=$(awk -v c=$a '{ print $c }' "$tmp/pairs" | median)
			h=$(awk -v c=$b '{ print $c }' "$tmp/pairs" | median)
			p=$(awk -v a=$a -v b=$b '$a > 0 { print $b / $a }' "$tmp/pairs" | median)
			results+=("$(printf '%-6s %-6s %-7s %12s %12s %9s %9s' "$x" "$d" "$phase" "$f" "$h" \
				"$(awk -v h="$h" -v f="$f" 'BEGIN { printf "%.3f", h / f }')" \
				"$(awk -v p="$p" 'BEGIN { printf "%.3f", p }')")")
		done
	done
done
printf '%s\n' "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

printf '\nfio (psync) vs hpcbench ior -a POSIX -F, 1 process, median of %s runs, MiB/s\n' "$REPS"
printf '%-6s %-6s %-7s %12s %12s %9s %9s\n' xfer direct phase fio hpcbench hb/fio pairs
printf '%s\n' "${results[@]}"
