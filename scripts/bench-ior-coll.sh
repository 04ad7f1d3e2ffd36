#!/usr/bin/env bash
# bench-ior-coll.sh: hpcbench ior -c (ROMIO's two-phase collective I/O over
# hpcbench's collectives) against hpcbench's independent I/O and against
# IOR's -a MPIIO -c on MPICH's ROMIO, on ior-hard's pattern: 2 ranks, one
# shared file, -t 47008 -b 47008 -s SEGS, -w -r -e.
#
# Each round runs, back to back and starting with the next one in turn (so
# that none always goes first):
#
#   hpcbench launch -n 2 -- hpcbench ior -c -O collectiveCall=phase -t 47008 -b 47008 -s SEGS -w -r -e -o DIR/hb
#   hpcbench launch -n 2 -- hpcbench ior -c ... (one call per transfer, IOR's calls: the default)
#   hpcbench launch -n 2 -- hpcbench ior    -t 47008 -b 47008 -s SEGS -w -r -e -o DIR/hb
#   mpiexec.mpich -n 2 $IOR_BIN -a MPIIO -c -t 47008 -b 47008 -s SEGS -w -r -e -o DIR/ior   (IOR_BIN set)
#   mpiexec.mpich -n 2 $IOR_BIN -a MPIIO    -t 47008 -b 47008 -s SEGS -w -r -e -o DIR/ior   (IOR_BIN set)
#
# and prints, per phase (write, read), the median bandwidth of each (IOR's
# Max(MiB) of the summary, MiB/s) and the median of the rounds' own ratios:
# hb -cp / hb (what collective buffering gains or costs against independent
# I/O: with -O collectiveCall=phase hpcbench makes one collective call per
# phase, so ior-hard's interleaved accesses are aggregated), hb -cp / IOR -c,
# hb -c / IOR -c (hpcbench's default, one collective call per transfer, as
# IOR makes them, which ROMIO's automatic mode turns into independent I/O
# after a gather: the same work as IOR -c; target >= 1), IOR -c / IOR. It also prints
# how hpcbench ran each phase (its Options block: aggregators and rounds,
# or the automatic fallback). A command that fails or prints no figure
# ends the script with its error.
#
# Environment:
#   REPS=5              rounds
#   SEGS=2000           segments (-s): 2 × SEGS × 47008 bytes in the file
#   DIR=/dev/shm        where the files go (removed by the commands)
#   HINTS=              extra hpcbench -O hints for -c (cb_buffer_size=4m, ...)
#   HPCBENCH=PATH       benchmark this binary instead of building ./cmd/hpcbench
#   IOR_BIN=PATH        IOR built with MPI-IO (the C original), run under MPIEXEC
#   MPIEXEC=mpiexec.mpich
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
SEGS=${SEGS:-2000}
DIR=${DIR:-/dev/shm}
HINTS=${HINTS:-}
IOR_BIN=${IOR_BIN:-}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$DIR/hbcoll.$$" "$DIR/iorcoll.$$"' EXIT
hpcbench=$(hb_hpcbench "$tmp")
if [[ -n $IOR_BIN ]]; then
	[[ -x $IOR_BIN ]] || hb_die "IOR_BIN=$IOR_BIN is not an executable"
	command -v "$MPIEXEC" >/dev/null || hb_die "MPIEXEC=$MPIEXEC not found (Debian package mpich)"
fi
pattern=(-t 47008 -b 47008 -s "$SEGS" -w -r -e)

median() {
	sort -g | awk '{ v[n++] = $1 } END { if (n == 0) { print "-"; exit } print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# run NAME CMD... runs one command, checks its exit status and prints
# "NAME write MiB/s" and "NAME read MiB/s" from IOR's summary table.
run() {
	local name=$1
	shift
	if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
		hb_die "$name failed: $* : $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
	fi
	awk -v name="$name" '/^Summary of all tests:/ { s = 1; next } s && ($1 == "write" || $1 == "read") { print name, $1, $2; n++ }
		END { if (n != 2) exit 1 }' "$tmp/out" || hb_die "$name printed no write and read summary: $*"
}

sides=(hbc hbt hb)
declare -A cmd
# shellcheck disable=SC2206 # HINTS holds words, split on purpose
hints=(${HINTS:+-O $HINTS})
cmd[hbc]="$hpcbench launch -n 2 -- $hpcbench ior -c -O collectiveCall=phase ${hints[*]} ${pattern[*]} -o $DIR/hbcoll.$$"
cmd[hbt]="$hpcbench launch -n 2 -- $hpcbench ior -c ${hints[*]} ${pattern[*]} -o $DIR/hbcoll.$$"
cmd[hb]="$hpcbench launch -n 2 -- $hpcbench ior ${pattern[*]} -o $DIR/hbcoll.$$"
if [[ -n $IOR_BIN ]]; then
	sides+=(iorc ior)
	cmd[iorc]="$MPIEXEC -n 2 $IOR_BIN -a MPIIO -c ${pattern[*]} -o $DIR/iorcoll.$$"
	cmd[ior]="$MPIEXEC -n 2 $IOR_BIN -a MPIIO ${pattern[*]} -o $DIR/iorcoll.$$"
fi

# How hpcbench runs the phases.
# shellcheck disable=SC2086 # the command is words
$hpcbench launch -n 2 -- $hpcbench ior -c -O collectiveCall=phase "${hints[@]}" "${pattern[@]}" -o "$DIR/hbcoll.$$" >"$tmp/plan" 2>&1 ||
	hb_die "hpcbench ior -c failed: $(tail -n 3 "$tmp/plan" | tr '\n' ' ')"
: >"$tmp/all"
for ((i = 0; i < REPS; i++)); do
	hb_log "round $((i + 1)) of $REPS"
	n=${#sides[@]}
	for ((k = 0; k < n; k++)); do
		s=${sides[$(((i + k) % n))]}
		# shellcheck disable=SC2086 # the command is words
		run "$s" ${cmd[$s]} | sed "s/^/$i /" >>"$tmp/all"
	done
done

printf 'ior-hard on %s: 2 ranks, -t 47008 -b 47008 -s %s -w -r -e, %s rounds, medians, MiB/s\n' "$DIR" "$SEGS" "$REPS"
printf 'hpcbench -c -O collectiveCall=phase:\n'
grep -E '^(type|cb_|romio_|collective)' "$tmp/plan" | sed 's/^/  /'
printf '\n%-6s %10s %10s %10s' phase "hb -cp" "hb -c" hb
[[ -n $IOR_BIN ]] && printf ' %10s %10s' "IOR -c" IOR
printf ' %12s' "hb-cp/hb"
[[ -n $IOR_BIN ]] && printf ' %12s %12s %12s' "hb-cp/IOR-c" "hb-c/IOR-c" "IOR-c/IOR"
printf '\n'
for ph in write read; do
	printf '%-6s' "$ph"
	for s in "${sides[@]}"; do
		printf ' %10s' "$(awk -v s="$s" -v ph="$ph" '$2 == s && $3 == ph { print $4 }' "$tmp/all" | median)"
	done
	# ratio A B: the median of the rounds' own A/B.
	ratio() {
		awk -v a="$1" -v b="$2" -v ph="$ph" '$3 == ph && $2 == a { x[$1] = $4 } $3 == ph && $2 == b { y[$1] = $4 }
			END { for (r in x) if (y[r] > 0) print x[r] / y[r] }' "$tmp/all" | median
	}
	printf ' %12.3f' "$(ratio hbc hb)"
	[[ -n $IOR_BIN ]] && printf ' %12.3f %12.3f %12.3f' "$(ratio hbc iorc)" "$(ratio hbt iorc)" "$(ratio iorc ior)"
	printf '\n'
done
