#!/usr/bin/env bash
# bench-mdtest.sh: hpcbench mdtest against the floor, plain syscalls.
#
# scripts/mdloop.c forks P processes that run mdtest's phases on mdtest's
# tree with mdtest's names (formatted before the timed loops) between
# process-shared barriers, and prints mdtest's aggregate rate per phase
# (P*N over the slowest process's time). For P in PROCS, REPS times each,
# as interleaved pairs (the side that goes first alternates), it runs the
# file phases of issue 9's command and the directory phases:
#
#   mdloop -n N -p P -d DIR -F -w W -e W
#   hpcbench launch -n P -- hpcbench mdtest -n N -F -w W -e W -d DIR --format csv
#   mdloop -n N -p P -d DIR -D
#   hpcbench launch -n P -- hpcbench mdtest -n N -D -d DIR --format csv
#
# and prints, per phase and P, the median rate of each side, the ratio of
# the medians hpcbench/syscalls and the median of the pairs' own ratios,
# the figure the target applies to: >= 0.95 for every phase (hpcbench's
# engine adds nothing measurable per item), and the ratio of the best rates
# (the runs least disturbed by other load). A row whose command failed in
# any run says FAILED and makes the script exit 1; with STRICT=1, a pairs
# ratio under 0.95 does too. ("Directory read", which does nothing, and the
# tree phases have no counterpart in mdloop and no row.)
#
# DIR (default /var/tmp) gets a fresh directory, removed at the end. On a
# disk the creation rates follow the journal and whatever else writes to
# it; DIR=/dev/shm (tmpfs) leaves only the CPU's cost per call.
# Progress goes to stderr, the table to stdout. Installs gcc when missing.
#
# Environment:
#   REPS=7        pairs per case
#   N=1000        items per rank (issue 9's -n)
#   W=4096        bytes written at create and read back (-w, -e)
#   PROCS="1 2"   process counts
#   UNIQUE=       1: a tree per rank (mdtest -u) instead of the shared one
#   DIR=/var/tmp  where the files go
#   THREADS=2     threads in each mdloop process (-T), the others idle: an
#                 MPI rank's shape, as bench-ior.sh's floor (it moved no
#                 phase's rate measurably here: 3 pairs, -n 2000 -F)
#   STRICT=       1: exit 1 when a pairs ratio is below 0.95
#   CPU=          1: also measure the CPU time per item of each side (user +
#                 system, runs of N and 10*N items, the difference over 9*N),
#                 which a loaded host's scheduling leaves alone, unlike rates;
#                 it counts the work outside the timed loops too
#   HPCBENCH=PATH benchmark this binary instead of building ./cmd/hpcbench
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-7}
THREADS=${THREADS:-2}
N=${N:-1000}
W=${W:-4096}
read -r -a procs <<<"${PROCS:-1 2}"
DIR=${DIR:-/var/tmp}
UNIQUE=${UNIQUE:-}
STRICT=${STRICT:-}
CPU=${CPU:-}
target=0.95

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

uflag=()
[[ $UNIQUE == 1 ]] && uflag=(-u)
# The two commands of each kind: mdloop's flags, hpcbench mdtest's flags, and
# the phases they share.
kinds=(files dirs)
declare -A loopargs hbargs phases
loopargs[files]="-F -w $W -e $W"
hbargs[files]="-F -w $W -e $W"
phases[files]="File creation|File stat|File read|File removal"
loopargs[dirs]="-D"
hbargs[dirs]="-D"
phases[dirs]="Directory creation|Directory stat|Directory rename|Directory removal"

median() {
	sort -g | awk '{ v[n++] = $1 } END { if (n == 0) { print "-"; exit } print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# runloop P KIND OUT [ITEMS] and runhb P KIND OUT [ITEMS] run one side once
# (ITEMS per rank, default N); they fail when the command fails.
runloop() {
	local p=$1 kind=$2 out=$3 n=${4:-$N}
	# shellcheck disable=SC2086 # loopargs holds flags, split on purpose
	"$tmp/mdloop" -n "$n" -p "$p" -d "$work" -T "$THREADS" ${loopargs[$kind]} "${uflag[@]}" >"$out" 2>"$tmp/err" || {
		hb_log "mdloop -p $p ${loopargs[$kind]} failed: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		return 1
	}
}
runhb() {
	local p=$1 kind=$2 out=$3 n=${4:-$N}
	# shellcheck disable=SC2086 # hbargs holds flags, split on purpose
	"$hpcbench" launch -n "$p" -- "$hpcbench" mdtest -n "$n" ${hbargs[$kind]} "${uflag[@]}" -d "$work" \
		--format csv >"$tmp/hb.csv" 2>"$tmp/err" || {
		hb_log "hpcbench mdtest -n $p ${hbargs[$kind]} failed: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		return 1
	}
	# The CSV's fourth column is the mean rate over iterations: with one
	# iteration, mdtest's rate.
	awk -F, 'NR > 1 { print $1, $4 }' "$tmp/hb.csv" >"$out"
}
# rate FILE PHASE prints PHASE's rate from "PHASE RATE" lines, or nothing.
rate() {
	awk -v ph="$2" '{ r = $NF; $NF = ""; sub(/ $/, ""); if ($0 == ph) { print r; exit } }' "$1"
}

printf '%s\n' "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
rows=()
bad=0
for p in "${procs[@]}"; do
	for kind in "${kinds[@]}"; do
		IFS='|' read -r -a phs <<<"${phases[$kind]}"
		: >"$tmp/pairs"
		failed=0
		for ((rep = 1; rep <= REPS; rep++)); do
			hb_log "P=$p $kind pair $rep/$REPS"
			lok=1 hok=1
			if ((rep % 2)); then
				runloop "$p" "$kind" "$tmp/loop.out" || lok=0
				runhb "$p" "$kind" "$tmp/hb.out" || hok=0
			else
				runhb "$p" "$kind" "$tmp/hb.out" || hok=0
				runloop "$p" "$kind" "$tmp/loop.out" || lok=0
			fi
			# Whatever a failed run left goes before the next one.
			find "$work" -mindepth 1 -delete
			for ph in "${phs[@]}"; do
				l=$( ((lok)) && rate "$tmp/loop.out" "$ph" || true)
				h=$( ((hok)) && rate "$tmp/hb.out" "$ph" || true)
				if [[ -z $l || -z $h ]]; then
					failed=1
					continue
				fi
				printf '%s|%s|%s\n' "$ph" "$l" "$h" >>"$tmp/pairs"
			done
		done
		for ph in "${phs[@]}"; do
			if ((failed)); then
				rows+=("$(printf "%-5s %-19s %14s %14s %9s %9s %9s" "$p" "$ph" FAILED FAILED - - -)")
				bad=1
				continue
			fi
			l=$(awk -F'|' -v ph="$ph" '$1 == ph { print $2 }' "$tmp/pairs" | median)
			h=$(awk -F'|' -v ph="$ph" '$1 == ph { print $3 }' "$tmp/pairs" | median)
			pr=$(awk -F'|' -v ph="$ph" '$1 == ph && $2 > 0 { print $3 / $2 }' "$tmp/pairs" | median)
			mark=""
			if awk -v x="$pr" -v t="$target" 'BEGIN { exit !(x < t) }'; then
				mark=" <"
				[[ $STRICT == 1 ]] && bad=1
			fi
			best=$(awk -F'|' -v ph="$ph" '$1 == ph { if ($2 > l) l = $2; if ($3 > h) h = $3 } END { print h / l }' "$tmp/pairs")
			rows+=("$(printf "%-5s %-19s %14.3f %14.3f %9.3f %9.3f %9.3f%s" "$p" "$ph" "$l" "$h" \
				"$(awk -v h="$h" -v l="$l" 'BEGIN { print h / l }')" "$best" "$pr" "$mark")")
		done
	done
done

# cputime SIDE P KIND N: the CPU seconds (user + system, of the command and
# every process it waited for) of one run of side SIDE (runloop or runhb).
cputime() {
	local TIMEFORMAT='%3U %3S'
	{ time "$1" "$2" "$3" "$tmp/cpu.out" "$4"; } 2>"$tmp/time" || return 1
	awk '{ print $1 + $2 }' "$tmp/time"
}

cpurows=()
if [[ $CPU == 1 ]]; then
	big=$((10 * N))
	for p in "${procs[@]}"; do
		for kind in "${kinds[@]}"; do
			: >"$tmp/cpu"
			failed=0
			for ((rep = 1; rep <= REPS; rep++)); do
				hb_log "P=$p $kind CPU pair $rep/$REPS"
				l1=$(cputime runloop "$p" "$kind" "$N") && l2=$(cputime runloop "$p" "$kind" "$big") &&
					h1=$(cputime runhb "$p" "$kind" "$N") && h2=$(cputime runhb "$p" "$kind" "$big") || failed=1
				find "$work" -mindepth 1 -delete
				((failed)) && break
				# CPU per item, in µs: the difference between the two sizes
				# leaves out start-up (the Go runtime's, the launcher's).
				awk -v a="$l1" -v b="$l2" -v c="$h1" -v d="$h2" -v n=$((9 * N * p)) \
					'BEGIN { printf "%.4f %.4f\n", (b - a) * 1e6 / n, (d - c) * 1e6 / n }' >>"$tmp/cpu"
			done
			if ((failed)); then
				cpurows+=("$(printf "%-5s %-6s %14s %14s %9s" "$p" "$kind" FAILED FAILED -)")
				bad=1
				continue
			fi
			l=$(awk '{ print $1 }' "$tmp/cpu" | median)
			h=$(awk '{ print $2 }' "$tmp/cpu" | median)
			pr=$(awk '$2 > 0 { print $1 / $2 }' "$tmp/cpu" | median)
			cpurows+=("$(printf "%-5s %-6s %14.3f %14.3f %9.3f" "$p" "$kind" "$l" "$h" "$pr")")
		done
	done
fi
printf '%s\n' "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

u=""
[[ $UNIQUE == 1 ]] && u=" -u"
printf '\nsyscall loop (%s threads a process) vs hpcbench mdtest%s, %s items per rank, -w/-e %s, %s pairs, ops/s (< : pairs ratio under %s)\n' \
	"$THREADS" "$u" "$N" "$W" "$REPS" "$target"
printf '%-5s %-19s %14s %14s %9s %9s %9s\n' ranks phase syscalls hpcbench hb/loop best pairs
printf '%s\n' "${rows[@]}"
if ((${#cpurows[@]})); then
	printf '\nCPU time per item of the whole run (all phases, and what each side does outside its timed loops:\n'
	printf 'formatting paths, collecting garbage), runs of %s and %s items per rank, median of %s pairs, µs\n' "$N" "$((10 * N))" "$REPS"
	printf '%-5s %-6s %14s %14s %9s\n' ranks kind syscalls hpcbench loop/hb
	printf '%s\n' "${cpurows[@]}"
fi
exit "$bad"
