#!/usr/bin/env bash
# ci-perf.sh: a short performance suite for CI, and the regression gate.
#
#   scripts/ci-perf.sh OUTDIR [BASELINE]
#
# Runs REPS rounds of a short suite, each benchmark through its --archive,
# and keeps every archive in OUTDIR (the CI job's artifacts):
#
#   ior     launch -n $NP -- hpcbench ior -a POSIX -b $IOR_BLOCK -t 1m -w -r -e -F
#   mdtest  launch -n $NP -- hpcbench mdtest -n $MD_ITEMS -F -w 4096 -e 4096
#   coll    launch -n $NP -- hpcbench coll -iter 200 -time 1 PingPong Allreduce
#   wireup  launch -n $WIREUP_N -- hpcbench wireup --pattern ring
#
# the rounds interleaved (ior, mdtest, coll, wireup, then again), so that a
# machine whose speed drifts moves every benchmark alike. Each archive is
# OUTDIR/BENCH-ROUND.json; every command must exit 0, or the script stops
# with exit 1 and names it.
#
# With BASELINE, a directory of archives a previous run of this script
# kept (the last good build's artifacts), it then runs
#
#   hpcbench compare --threshold $THRESHOLD --alpha $ALPHA BASELINE OUTDIR
#
# and exits with compare's status: 0 when nothing regressed significantly
# beyond the threshold, 1 when something did, 2 when the archives cannot be
# compared (different parameters: change the suite and the baseline
# together). compare pools the rounds of each benchmark per side, so REPS
# is the number of samples per metric (at least 4 a side can be decided at
# alpha 0.05; 5 or more is better).
#
# Environment:
#   REPS=5 NP=2 IOR_BLOCK=64m MD_ITEMS=1000 WIREUP_N=64
#   THRESHOLD=5% ALPHA=0.05
#   HPCBENCH=PATH   use this binary instead of building ./cmd/hpcbench
#   DATADIR         where ior and mdtest write their files, the same path
#                   every run (the file names are parameters that compare
#                   matches); default ${TMPDIR:-/tmp}/hpcbench-ci-perf,
#                   emptied before and removed after
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)

[[ $# -ge 1 && $# -le 2 ]] || hb_die "usage: scripts/ci-perf.sh OUTDIR [BASELINE]"
out=$1
baseline=${2:-}
REPS=${REPS:-5}
NP=${NP:-2}
IOR_BLOCK=${IOR_BLOCK:-64m}
MD_ITEMS=${MD_ITEMS:-1000}
WIREUP_N=${WIREUP_N:-64}
THRESHOLD=${THRESHOLD:-5%}
ALPHA=${ALPHA:-0.05}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || hb_die "REPS=$REPS: want a whole number >= 1"
if [[ -n $baseline && ! -d $baseline ]]; then
	hb_die "BASELINE $baseline: not a directory of archives"
fi
if [[ -n $baseline && $REPS -lt 4 ]]; then
	# With fewer, no change reaches p < 0.05 and the gate could never fail.
	hb_die "REPS=$REPS: the gate needs at least 4 rounds a side (Mann-Whitney at alpha 0.05)"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)

work=$(mktemp -d "${TMPDIR:-/tmp}/ci-perf.XXXXXX")
data=${DATADIR:-${TMPDIR:-/tmp}/hpcbench-ci-perf}
rm -rf "$data"
mkdir -p "$data"
trap 'rm -rf "$work" "$data"' EXIT

if [[ -n ${HPCBENCH:-} ]]; then
	hpcbench=$(cd "$(dirname "$HPCBENCH")" && pwd -P)/$(basename "$HPCBENCH")
	[[ -x $hpcbench ]] || hb_die "HPCBENCH=$HPCBENCH is not an executable"
else
	hb_ensure_go
	hpcbench=$work/hpcbench
	hb_log "CGO_ENABLED=0 go build -o $hpcbench ./cmd/hpcbench"
	(cd "$root" && CGO_ENABLED=0 go build -o "$hpcbench" ./cmd/hpcbench) ||
		hb_die "building hpcbench failed: fix the build, or set HPCBENCH to a binary"
fi

# bench NAME ROUND ARGS...: one run of a benchmark under the launcher,
# archived as OUTDIR/NAME-ROUND.json; a failure stops the suite.
bench() {
	local name=$1 round=$2
	shift 2
	local archive=$out/$name-$round.json
	hb_log "round $round: $name"
	if ! "$hpcbench" launch -n "$np" -- "$hpcbench" "$@" --archive "$archive" >"$work/$name.out" 2>&1; then
		cat "$work/$name.out" >&2
		hb_die "round $round: $name failed: hpcbench launch -n $np -- hpcbench $*"
	fi
	[[ -s $archive ]] || hb_die "round $round: $name exited 0 but wrote no archive $archive"
}

for ((round = 1; round <= REPS; round++)); do
	np=$NP
	bench ior "$round" ior -a POSIX -b "$IOR_BLOCK" -t 1m -w -r -e -F -o "$data/ior"
	bench mdtest "$round" mdtest -n "$MD_ITEMS" -F -w 4096 -e 4096 -d "$data/md"
	bench coll "$round" coll -iter 200 -time 1 PingPong Allreduce
	np=$WIREUP_N
	bench wireup "$round" wireup --pattern ring
done
hb_log "archives in $out"

if [[ -n $baseline ]]; then
	hb_log "hpcbench compare --threshold $THRESHOLD --alpha $ALPHA $baseline $out"
	set +e
	"$hpcbench" compare --threshold "$THRESHOLD" --alpha "$ALPHA" "$baseline" "$out"
	rc=$?
	set -e
	case $rc in
	0) hb_log "gate: no significant regression beyond $THRESHOLD" ;;
	1) hb_log "gate: FAILED: a significant regression beyond $THRESHOLD (above)" ;;
	*) hb_log "gate: the archives could not be compared (exit $rc, above)" ;;
	esac
	exit "$rc"
fi
