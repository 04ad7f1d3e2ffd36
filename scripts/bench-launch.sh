#!/usr/bin/env bash
# bench-launch.sh: hpcbench launch side by side with MPICH's mpiexec (Hydra)
# and with the floor, a plain C posix_spawn loop (scripts/spawnfloor.c) that
# starts and reaps N copies of true. One run measures, with hyperfine
# (-N: no shell in between), the median wall time of:
#
#   floor | mpiexec -n N true | hpcbench launch -n N -- true   for N in $NS
#   mpiexec -n N initfinal | hpcbench launch -n N -- initfinal  for N in $MPI_NS
#     (initfinal: MPI_Init + MPI_Finalize, cmd/hpcbench/testdata/mpi)
#   hpcbench launch -n $WIREUP_N -- hpcbench wireup --pattern ring | all
#
# and prints one table with the ratios hpcbench/mpiexec and hpcbench/floor
# and whether each row meets its target: <= 1.25x the floor for true,
# <= 1.0x mpiexec for the MPI program, <= 1.5x the floor for wireup ring, and
# completing for wireup all (a million gets at 1024 ranks).
#
# Progress and hyperfine's own reports go to stderr, the table to stdout.
# Works from any directory. Installs mpich, libmpich-dev, gcc and hyperfine
# when they are missing (needs root then).
#
# Environment:
#   REPS=5                timed runs per command (after one untimed check run)
#   WIREUP_REPS=$REPS     timed runs for the two wireup rows
#   NS="16 64 256 512"    rank counts for true
#   MPI_NS="4 16"         rank counts for the MPI program
#   WIREUP_N=1024         rank count for wireup
#   HPCBENCH=PATH         benchmark this binary instead of building ./cmd/hpcbench
#   STRICT=1              exit 1 when a row misses its target
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
WIREUP_REPS=${WIREUP_REPS:-$REPS}
NS=${NS:-16 64 256 512}
MPI_NS=${MPI_NS:-4 16}
WIREUP_N=${WIREUP_N:-1024}
STRICT=${STRICT:-0}

hb_ensure_debs mpich libmpich-dev gcc hyperfine

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-launch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# MPICH's launcher: mpiexec.mpich on Debian; plain mpiexec only when it is
# Hydra (under Debian's alternatives it may be Open MPI's).
mpiexec=
for c in mpiexec.mpich mpiexec.hydra; do
	if command -v "$c" >/dev/null 2>&1; then
		mpiexec=$(command -v "$c")
		break
	fi
done
if [[ -z $mpiexec ]] && command -v mpiexec >/dev/null 2>&1 &&
	mpiexec --version 2>/dev/null | grep -q HYDRA; then
	mpiexec=$(command -v mpiexec)
fi
[[ -n $mpiexec ]] || hb_die "MPICH's mpiexec (Hydra) not found: install Debian package mpich"
mpicc=$(command -v mpicc.mpich || command -v mpicc || true)
[[ -n $mpicc ]] || hb_die "mpicc not found: install Debian package libmpich-dev"
true_bin=$(type -P true) || hb_die "no true executable in PATH"

if [[ -n ${HPCBENCH:-} ]]; then
	hpcbench=$(cd "$(dirname "$HPCBENCH")" && pwd -P)/$(basename "$HPCBENCH")
	[[ -x $hpcbench ]] || hb_die "HPCBENCH=$HPCBENCH is not an executable"
else
	hb_ensure_go
	hpcbench=$tmp/hpcbench
	hb_log "CGO_ENABLED=0 go build -o $hpcbench ./cmd/hpcbench"
	CGO_ENABLED=0 go build -o "$hpcbench" ./cmd/hpcbench ||
		hb_die "building hpcbench failed (go build ./cmd/hpcbench): fix the build, or set HPCBENCH to a binary"
fi
hb_log "gcc scripts/spawnfloor.c; $mpicc initfinal.c"
gcc -O2 -Wall -o "$tmp/spawnfloor" scripts/spawnfloor.c
"$mpicc" -O2 -Wall -o "$tmp/initfinal" cmd/hpcbench/testdata/mpi/initfinal.c

# cmdline prints its arguments as one command line hyperfine -N can split.
cmdline() {
	local s
	printf -v s '%q ' "$@"
	printf '%s' "${s% }"
}

# check runs a command once, untimed (it doubles as the warm-up run), and
# dies showing its output if it fails, since hyperfine would not show it.
check() {
	if ! "$@" >"$tmp/check.out" 2>&1; then
		tail -n 20 "$tmp/check.out" >&2
		hb_die "failed: $(cmdline "$@")"
	fi
}

# measure REPS LABEL=CMDLINE... times each command line with hyperfine and
# appends "LABEL MEDIAN_SECONDS" lines to $tmp/medians.
measure() {
	local reps=$1 arg args=()
	shift
	for arg in "$@"; do
		args+=(--command-name "${arg%%=*}" "${arg#*=}")
	done
	hyperfine -N --style basic --warmup 0 --runs "$reps" --export-csv "$tmp/run.csv" "${args[@]}" >&2 ||
		hb_die "hyperfine failed for: ${args[*]}"
	awk -F, 'NR > 1 { print $1, $4 }' "$tmp/run.csv" >>"$tmp/medians"
}

median() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print "-" }' "$tmp/medians"
}

: >"$tmp/medians"
hb_log "mpiexec: $mpiexec ($("$mpiexec" --version 2>/dev/null | awk '/Version:/ { print $2; exit }'))"

for n in $NS; do
	floor=("$tmp/spawnfloor" "$n" "$true_bin")
	mpi=("$mpiexec" -n "$n" "$true_bin")
	hb=("$hpcbench" launch -n "$n" -- "$true_bin")
	check "${floor[@]}"
	check "${mpi[@]}"
	check "${hb[@]}"
	measure "$REPS" "floor-$n=$(cmdline "${floor[@]}")" "mpiexec-$n=$(cmdline "${mpi[@]}")" \
		"hpcbench-$n=$(cmdline "${hb[@]}")"
done

for n in $MPI_NS; do
	mpi=("$mpiexec" -n "$n" "$tmp/initfinal")
	hb=("$hpcbench" launch -n "$n" -- "$tmp/initfinal")
	check "${mpi[@]}"
	check "${hb[@]}"
	measure "$REPS" "mpiexec-mpi-$n=$(cmdline "${mpi[@]}")" "hpcbench-mpi-$n=$(cmdline "${hb[@]}")"
done

wireup_err=
floor=("$tmp/spawnfloor" "$WIREUP_N" "$true_bin")
ring=("$hpcbench" launch -n "$WIREUP_N" -- "$hpcbench" wireup --pattern ring)
all=("$hpcbench" launch -n "$WIREUP_N" -- "$hpcbench" wireup --pattern all)
if ! "$hpcbench" launch -n 2 -- "$hpcbench" wireup --pattern ring >"$tmp/wireup.out" 2>&1; then
	wireup_err="hpcbench launch -n 2 -- hpcbench wireup --pattern ring failed: $(tail -n 3 "$tmp/wireup.out" | tr '\n' ' ')"
	hb_log "skipping the wireup rows: it does not run at n=2"
else
	check "${floor[@]}"
	check "${ring[@]}"
	check "${all[@]}"
	measure "$WIREUP_REPS" "floor-w=$(cmdline "${floor[@]}")" "ring=$(cmdline "${ring[@]}")" \
		"all=$(cmdline "${all[@]}")"
fi

# row KIND N FLOOR MPIEXEC HPCBENCH: one table line; times in seconds or "-".
# KIND says which target applies: true (floor 1.25), mpi (mpiexec 1.0),
# ring (floor 1.5) or all (completes).
row() {
	awk -v kind="$1" -v n="$2" -v f="$3" -v m="$4" -v h="$5" -v what="$6" '
	function ms(x) { return x == "-" ? "-" : sprintf("%.1f", x * 1000) }
	function ratio(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2f", a / b) }
	BEGIN {
		rm = ratio(h, m); rf = ratio(h, f)
		if (h == "-") { target = "-"; verdict = "NOT RUN" }
		else if (kind == "true") { target = "floor<=1.25"; verdict = (rf + 0 <= 1.25) ? "ok" : "MISS" }
		else if (kind == "mpi") { target = "mpiexec<=1.00"; verdict = (rm + 0 <= 1.00) ? "ok" : "MISS" }
		else if (kind == "ring") { target = "floor<=1.50"; verdict = (rf + 0 <= 1.50) ? "ok" : "MISS" }
		else { target = "completes"; verdict = "ok" }
		printf "%-22s %5s %10s %10s %10s %9s %9s  %-14s %s\n", what, n, ms(f), ms(m), ms(h), rm, rf, target, verdict
	}'
}

{
	printf '\nmedian wall time of %s runs, in ms; mpiexec = %s\n\n' "$REPS" "$mpiexec"
	printf '%-22s %5s %10s %10s %10s %9s %9s  %-14s %s\n' command N floor mpiexec hpcbench \
		hb/mpiexec hb/floor target verdict
	for n in $NS; do
		row true "$n" "$(median "floor-$n")" "$(median "mpiexec-$n")" "$(median "hpcbench-$n")" true
	done
	for n in $MPI_NS; do
		row mpi "$n" - "$(median "mpiexec-mpi-$n")" "$(median "hpcbench-mpi-$n")" initfinal
	done
	row ring "$WIREUP_N" "$(median floor-w)" - "$(median ring)" "wireup --pattern ring"
	row all "$WIREUP_N" "$(median floor-w)" - "$(median all)" "wireup --pattern all"
} | tee "$tmp/table"

status=0
if [[ -n $wireup_err ]]; then
	printf '\n%s: wireup rows not run: %s\n' "${0##*/}" "$wireup_err" >&2
	status=1
fi
if [[ $STRICT == 1 ]] && grep -q 'MISS$' "$tmp/table"; then
	printf '%s: some rows miss their target (STRICT=1)\n' "${0##*/}" >&2
	status=1
fi
exit "$status"
