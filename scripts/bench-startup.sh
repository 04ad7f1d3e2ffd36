#!/usr/bin/env bash
# bench-startup.sh: the start-up cost of `hpcbench version` at BASE (a git
# revision, default main) and in the working tree, both built with
# CGO_ENABLED=0. Every rank of a job starts the same binary and runs every
# linked package's init, so a dependency must not make this slower.
#
# ROUNDS rounds (default 10) of `hyperfine -N -w 5 -r 100` on the two
# binaries, the order swapped every round (hyperfine runs its commands one
# after the other, and a machine's speed drifts); per round it prints each
# side's median and the ratio new/base, then the medians over the rounds
# and the median of the per-round ratios, the figure to trust on a shared
# machine. It also sums GODEBUG=inittrace=1's init clock times (median of
# 21 starts each). Needs hyperfine and python3; works from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-main}
ROUNDS=${ROUNDS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git archive "$BASE" | tar -x -C "$tmp/src"
(cd "$tmp/src" && CGO_ENABLED=0 go build -o "$tmp/base" ./cmd/hpcbench)
CGO_ENABLED=0 go build -o "$tmp/new" ./cmd/hpcbench
for b in base new; do
	"$tmp/$b" version >/dev/null || { echo "bench-startup: $b: hpcbench version failed" >&2; exit 1; }
done
echo "base $BASE: $(stat -c %s "$tmp/base") bytes; new (working tree): $(stat -c %s "$tmp/new") bytes"
for i in $(seq 1 "$ROUNDS"); do
	if ((i % 2)); then order=(base new); else order=(new base); fi
	hyperfine -N -w 5 -r 100 --export-json "$tmp/r$i.json" \
		"$tmp/${order[0]} version" "$tmp/${order[1]} version" >/dev/null 2>&1 ||
		{ echo "bench-startup: round $i: hyperfine failed" >&2; exit 1; }
done
inits() {
	for _ in $(seq 21); do
		GODEBUG=inittrace=1 "$1" version 2>&1 >/dev/null | awk '/^init /{s+=$5} END {print s}'
	done | sort -n | sed -n 11p
}
echo "init clock (sum of inittrace, median of 21): base $(inits "$tmp/base") ms, new $(inits "$tmp/new") ms"
python3 - "$tmp" "$ROUNDS" <<'PY'
import json, statistics as st, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
base, new, ratio = [], [], []
for i in range(1, rounds + 1):
    res = json.load(open('%s/r%d.json' % (tmp, i)))['results']
    med = {r['command'].split('/')[-1].split()[0]: r['median'] * 1e3 for r in res}
    b, n = med['base'], med['new']
    base.append(b); new.append(n); ratio.append(n / b)
    print('round %2d: base %.3f ms  new %.3f ms  new/base %.3f' % (i, b, n, n / b))
print('median: base %.3f ms  new %.3f ms  (new-base %+.3f ms)  median new/base %.3f'
      % (st.median(base), st.median(new), st.median(new) - st.median(base), st.median(ratio)))
PY
