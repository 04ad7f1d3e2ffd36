#!/usr/bin/env bash
# bench-mdtest.sh: hpcbench mdtest -F against the floor, plain syscalls.
#
# scripts/mdloop.c forks P processes that each create, stat and unlink N
# empty files (mdtest's names, formatted before the timed loop) between
# process-shared barriers, and prints mdtest's aggregate rate per phase
# (P*N over the slowest process's time). For P = 1 and 2, REPS times each,
# back to back:
#
#   mdloop -n N -p P -d DIR
#   hpcbench launch -n P -- hpcbench mdtest -a POSIX -n N -F -u -C -T -r -d DIR --format csv
#
# and prints, per phase, the median rate of each, the ratio of the medians
# hpcbench/syscalls and the median of each back-to-back pair's own ratio.
# Target: >= 0.9 (the engine adds no measurable overhead per item).
#
# DIR (default /var/tmp) gets a fresh directory, removed at the end.
# Progress goes to stderr, the table to stdout. Installs gcc when missing.
#
# Environment:
#   REPS=5        runs per case
#   N=20000       items per rank
#   PROCS="1 2"   process counts
#   DIR=/var/tmp  where the files go
#   HPCBENCH=PATH benchmark this binary instead of building ./cmd/hpcbench
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
N=${N:-20000}
read -r -a procs <<<"${PROCS:-1 2}"
DIR=${DIR:-/var/tmp}

command -v gcc >/dev/null 2>&1 || hb_ensure_debs gcc
tmp=$(mktemp -d)
work=$(mktemp -d "$DIR/hpcbench-bench-mdtest.XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT

gcc -O2 -Wall -pthread -o "$tmp/mdloop" scripts/mdloop.c
hpcbench=${HPCBENCH:-}
if [[ -z $hpcbench ]]; then
	hb_ensure_go
	hb_log "building hpcbench"
	CGO_ENABLED=0 go build -o "$tmp/hpcbench" ./cmd/hpcbench
	hpcbench=$tmp/hpcbench
fi

median() {
	sort -g | awk '{ v[n++] = $1 } END { if (n == 0) { print "-"; exit } print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

printf '%s\n' "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rows=()
for p in "${procs[@]}"; do
	: >"$tmp/pairs"
	for ((rep = 1; rep <= REPS; rep++)); do
		hb_log "P=$p run $rep/$REPS: mdloop"
		"$tmp/mdloop" -n "$N" -p "$p" -d "$work" >"$tmp/loop.out" || hb_die "mdloop failed"
		hb_log "P=$p run $rep/$REPS: hpcbench mdtest"
		"$hpcbench" launch -n "$p" -- "$hpcbench" mdtest -a POSIX -n "$N" -F -u -C -T -r -d "$work" \
			--format csv >"$tmp/hb.out" 2>"$tmp/hb.err" ||
			hb_die "hpcbench mdtest failed: $(tail -n 3 "$tmp/hb.err" | tr '\n' ' ')"
		for ph in "File creation" "File stat" "File removal"; do
			l=$(awk -v ph="$ph" '{ r = $NF; $NF = ""; sub(/ $/, ""); if ($0 == ph) print r }' "$tmp/loop.out")
			h=$(awk -F, -v ph="$ph" '$1 == ph { print $4; exit }' "$tmp/hb.out")
			printf '%s|%s|%s\n' "$ph" "$l" "$h" >>"$tmp/pairs"
		done
	done
	for ph in "File creation" "File stat" "File removal"; do
		l=$(awk -F'|' -v ph="$ph" '$1 == ph { print $2 }' "$tmp/pairs" | median)
		h=$(awk -F'|' -v ph="$ph" '$1 == ph { print $3 }' "$tmp/pairs" | median)
		pr=$(awk -F'|' -v ph="$ph" '$1 == ph && $2 > 0 { print $3 / $2 }' "$tmp/pairs" | median)
		rows+=("$(printf "%-5s %-15s %14.3f %14.3f %9s %9s" "$p" "$ph" "$l" "$h" \
			"$(awk -v h="$h" -v l="$l" 'BEGIN { printf "%.3f", h / l }')" "$(awk -v x="$pr" 'BEGIN { printf "%.3f", x }')")")
	done
done
printf '%s\n' "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

printf '\nsyscall loop vs hpcbench mdtest -F, %s items per rank, median of %s runs, ops/s\n' "$N" "$REPS"
printf '%-5s %-15s %14s %14s %9s %9s\n' ranks phase syscalls hpcbench hb/loop pairs
printf '%s\n' "${rows[@]}"
