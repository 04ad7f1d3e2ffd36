#!/usr/bin/env bash
# bench-io500.sh: hpcbench io500 against the IO500 application (IO500/io500,
# built against IOR's library and Debian's MPICH, outside the project).
#
# Both run the same INI file (a small data dir, a short stonewall: such a
# run is INVALID by design, and both say so) on NP ranks, as interleaved
# rounds (the side that goes first alternates):
#
#   mpiexec.mpich -n NP $IO500_BIN CONFIG.ini
#   hpcbench launch -n NP -- hpcbench io500 CONFIG.ini
#
# and prints, per phase, the median score of each side (GiB/s or kIOPS, as
# each printed it in its [RESULT] line) and the median of the rounds' own
# ratios hpcbench/IO500, the figure the target applies to (>= 1.0 for every
# phase), then the same for the score. It also checks that both declare
# the run INVALID, and the same phases INVALID in every round. Every
# command's exit status is checked: a failure makes the script exit 1;
# STRICT=1 also fails on a ratio under 1.0.
#
# Environment:
#   IO500_BIN     the IO500 application (skips with one line when unset)
#   REPS=5        rounds
#   NP=2          ranks
#   DIR=/dev/shm  where the data dir goes (a fresh directory, removed)
#   STONEWALL=2   [debug] stonewall-time
#   BLOCK=64m     [ior-easy] blockSize (transferSize 1m)
#   N=2000        [mdtest-easy] and [mdtest-hard] n
#   SEGMENTS=2000 [ior-hard] segmentCount
#   STRICT=       1: exit 1 when a ratio is below 1.0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

if [ -z "${IO500_BIN:-}" ]; then
	echo "bench-io500.sh: IO500_BIN is not set (the IO500 application's binary): skipped"
	exit 0
fi
REPS=${REPS:-5} NP=${NP:-2} DIR=${DIR:-/dev/shm} STONEWALL=${STONEWALL:-2}
BLOCK=${BLOCK:-64m} N=${N:-2000} SEGMENTS=${SEGMENTS:-2000}

work=$(mktemp -d "$DIR/bench-io500.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin="$work/hpcbench"
(cd "$here/.." && go build -o "$bin" ./cmd/hpcbench)

ini() { # ini SIDE: the INI file of one side (its own data and results dirs)
	cat > "$work/$1.ini" <<INI
[global]
datadir = $work/$1-data
resultdir = $work/$1-results
timestamp-datadir = FALSE
timestamp-resultdir = FALSE
drop-caches = FALSE
[debug]
stonewall-time = $STONEWALL
[ior-easy]
transferSize = 1m
blockSize = $BLOCK
[mdtest-easy]
n = $N
[ior-hard]
segmentCount = $SEGMENTS
[mdtest-hard]
n = $N
[find]
INI
}
ini c
ini go

# run SIDE ROUND: one run, its console kept; a failed run fails the script.
run() {
	local side=$1 round=$2 out="$work/$1.$2.out"
	rm -rf "$work/$side-data" "$work/$side-results"
	if [ "$side" = c ]; then
		(cd "$work" && mpiexec.mpich -n "$NP" "$IO500_BIN" "$work/c.ini") > "$out" 2>&1 || { echo "FAILED: IO500 (round $round):"; cat "$out"; exit 1; } >&2
	else
		"$bin" launch -n "$NP" -- "$bin" io500 "$work/go.ini" > "$out" 2>&1 || { echo "FAILED: hpcbench io500 (round $round):"; cat "$out"; exit 1; } >&2
	fi
	grep -q '^\[SCORE \].*\[INVALID\]' "$out" || { echo "FAILED: $side round $round: the short stonewall's run is not declared INVALID"; exit 1; } >&2
}

# invalid OUT: the phases OUT's [RESULT] lines mark [INVALID], one line.
invalid() { awk '/^\[(RESULT|      )\].*\[INVALID\]$/ { printf "%s ", $2 }' "$1"; }

for r in $(seq 1 "$REPS"); do
	echo "round $r/$REPS" >&2
	if [ $((r % 2)) = 1 ]; then run c "$r"; run go "$r"; else run go "$r"; run c "$r"; fi
	# Both must declare the same phases invalid.
	if [ "$(invalid "$work/c.$r.out")" != "$(invalid "$work/go.$r.out")" ]; then
		echo "FAILED: round $r: IO500 marks [$(invalid "$work/c.$r.out")] INVALID, hpcbench [$(invalid "$work/go.$r.out")]" >&2
		exit 1
	fi
done

# The medians and the median of the pairs' ratios, per phase and the score.
awk -v reps="$REPS" -v strict="${STRICT:-}" -v work="$work" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
BEGIN {
	for (r = 1; r <= reps; r++) for (s = 0; s < 2; s++) {
		side = s ? "go" : "c"; f = work "/" side "." r ".out"
		while ((getline line < f) > 0) {
			if (line ~ /^\[RESULT\]/) { split(line, w, " +"); v[side, w[2], r] = w[3]; if (side == "c" && !(w[2] in seen)) { seen[w[2]] = 1; order[++np] = w[2] } }
			if (line ~ /^\[SCORE \]/) { split(line, w, " +"); v[side, "SCORE", r] = w[12] }
		}
		close(f)
	}
	order[++np] = "SCORE"
	printf "%-20s %14s %14s %12s\n", "phase", "IO500", "hpcbench", "pairs ratio"
	bad = 0
	for (i = 1; i <= np; i++) {
		p = order[i]
		for (r = 1; r <= reps; r++) { a[r] = v["c", p, r]; b[r] = v["go", p, r]; q[r] = (a[r] > 0) ? b[r] / a[r] : 0 }
		mc = median(a, reps); mg = median(b, reps); mq = median(q, reps)
		printf "%-20s %14.3f %14.3f %12.2f\n", p, mc, mg, mq
		if (mq < 1.0) bad = 1
	}
	if (bad && strict) exit 1
}'
