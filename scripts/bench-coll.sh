#!/usr/bin/env bash
# bench-coll.sh: hpcbench coll side by side with MPICH, measured the same
# way, and hpcbench's TCP ping-pong beside libfabric's fi_pingpong.
#
# Part 1, collectives. scripts/imbprobe.c is a small MPI program that times
# PingPong, Barrier, Bcast, Allreduce (MPI_FLOAT sum), Allgather, Alltoall,
# Sendrecv and Exchange with IMB-MPI1's method (warm-up, dynamic repetition count, each
# collective call timed alone with MPI_Wtime and a barrier between calls,
# mean per rank, t_avg over ranks, PingPong half a round trip). The script
# runs, REPS times each:
#
#   mpiexec.mpich -n $NP -bind-to $BIND imbprobe -iter $ITER -time $TIME $SIZES
#   hpcbench launch -n $NP --bind-to $BIND -- hpcbench coll -msglen FILE \
#       -iter $ITER -time $TIME PingPong Barrier Bcast Allreduce Allgather \
#       Alltoall Sendrecv Exchange --format csv
#
# Both launchers bind rank r to the r-th core, as benchmark runs usually
# do: unbound, the kernel may start two ranks on one CPU and leave them
# there for a whole short run (the ranks' spin-then-yield waits then
# ping-pong on one CPU: 8 B PingPong 2.3 µs instead of 0.2-0.4; MPICH's
# pure spinning gets them moved at once). BIND=none compares unbound.
#
# and prints, per benchmark and size, the median over runs of each side's
# time in microseconds (PingPong: IMB's t, the slower rank's half round
# trip; the others: t_avg), the ratio of the medians hpcbench/MPICH, and
# under "pairs" the median of each run's own ratio (the two sides of a run
# ran back to back), which is the figure to trust on a machine whose speed
# drifts between runs.
#
# Part 2, TCP. `hpcbench coll --fabric tcp PingPong` on 2 ranks against
# `fi_pingpong -p tcp -e msg` (libfabric-bin) over 127.0.0.1: one-way
# latency (hpcbench's t, fi_pingpong's usec/xfer), medians over REPS runs,
# and the ratio. fi_pingpong does no warm-up, so its first iterations carry
# connection setup; it gets FI_ITER iterations to dilute that.
#
# Both parts print the load average before and after: on a shared 2-CPU VM
# the numbers are only as good as the machine is quiet.
#
# Progress goes to stderr, the tables to stdout. Works from any directory.
# Installs mpich, libmpich-dev, gcc and libfabric-bin when they are missing
# (needs root then). Fails with a clear message until `hpcbench coll` exists.
#
# Environment:
#   REPS=5                          runs per command; medians are taken over them
#   NP=2                            ranks for part 1
#   BIND=core                       -bind-to of both launchers in part 1 (none, hwthread, core, socket)
#   SIZES="8 1024 65536 1048576 4194304"  message sizes, bytes
#   ITER=1000                       -iter: most repetitions per size
#   TIME=3                          -time: seconds a size may take
#   FI_SIZES="8 1024 65536 1048576"  sizes for part 2
#   FI_ITER=10000                   fi_pingpong -I (and hpcbench -iter) for part 2
#   FABRIC=auto                     hpcbench coll's --fabric in part 1: auto (shm between
#                                   ranks of one host), or ucx, the transport Debian's MPICH
#                                   itself runs on (ch4:ucx), or ofi:PROVIDER; the heading
#                                   names it
#   HPCBENCH=PATH                   benchmark this binary instead of building ./cmd/hpcbench
#   SKIP_TCP=1                      skip part 2
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
NP=${NP:-2}
BIND=${BIND:-core}
SIZES=${SIZES:-8 1024 65536 1048576 4194304}
ITER=${ITER:-1000}
TIME=${TIME:-3}
FI_SIZES=${FI_SIZES:-8 1024 65536 1048576}
FI_ITER=${FI_ITER:-10000}
SKIP_TCP=${SKIP_TCP:-0}
FABRIC=${FABRIC:-auto}
read -ra sizes <<<"$SIZES"
read -ra fi_sizes <<<"$FI_SIZES"
benches=(PingPong Barrier Bcast Allreduce Allgather Alltoall Sendrecv Exchange)

hb_ensure_debs mpich libmpich-dev gcc libfabric-bin

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-coll.XXXXXX")
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

mpiexec=$(command -v mpiexec.mpich || command -v mpiexec.hydra || true)
[[ -n $mpiexec ]] || hb_die "MPICH's mpiexec (Hydra) not found: install Debian package mpich"
mpicc=$(command -v mpicc.mpich || command -v mpicc || true)
[[ -n $mpicc ]] || hb_die "mpicc not found: install Debian package libmpich-dev"

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
if ! "$hpcbench" coll --help >"$tmp/help.out" 2>&1; then
	hb_die "this hpcbench has no working 'coll' subcommand ($(head -n 1 "$tmp/help.out")); wire cmd/hpcbench/coll.go first"
fi

hb_log "$mpicc -O2 scripts/imbprobe.c"
"$mpicc" -O2 -Wall -o "$tmp/imbprobe" scripts/imbprobe.c

# load prints the load average and the CPU count, for the record.
load() {
	printf '%s: load average %s on %s CPUs\n' "$1" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
}

# run_or_die runs a command, its stdout to file $1, and dies showing the
# tail of its output when it fails.
run_or_die() {
	local out=$1
	shift
	if ! "$@" >"$out" 2>"$tmp/stderr"; then
		tail -n 20 "$tmp/stderr" >&2
		hb_die "failed: $*"
	fi
}

# hb_csv_times reads `hpcbench coll --format csv` on stdin and prints
# "BENCH SIZE MICROSECONDS" per row: t for PingPong, else t_avg.
hb_csv_times() {
	awk -F, '
	$1 == "table" { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
	NF == 0 { next }
	{
		bench = $1; sub(/ np=.*/, "", bench)
		size = ("#bytes" in col) ? $col["#bytes"] : 0
		t = ("t(s)" in col) ? $col["t(s)"] : $col["t_avg(s)"]
		printf "%s %s %.3f\n", bench, size, t * 1e6
	}'
}

# median KEY FILE prints the median of the last field over lines whose
# leading fields equal KEY ("-" when there are none).
median() {
	awk -v k="$1" '
	{ key = $1; for (i = 2; i < NF; i++) key = key " " $i }
	key == k { v[n++] = $NF }
	END {
		if (n == 0) { print "-"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		print (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
	}' "$2"
}

# pair_ratio KEY A B prints the median over runs of A/B, where the k-th line
# of KEY in file A pairs with the k-th in file B: each run's two sides ran
# back to back, so a machine that changes speed between runs (this VM has
# two speed modes for cross-core traffic) moves both sides of a pair alike.
pair_ratio() {
	awk -v k="$1" '
	{ key = $1; for (i = 2; i < NF; i++) key = key " " $i }
	key != k { next }
	FILENAME == ARGV[1] { a[na++] = $NF; next }
	{ b[nb++] = $NF }
	END {
		n = 0
		for (i = 0; i < na && i < nb; i++) if (b[i] > 0) r[n++] = a[i] / b[i]
		if (n == 0) { print "-"; exit }
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		printf "%.2f", (n % 2) ? r[int(n / 2)] : (r[n / 2 - 1] + r[n / 2]) / 2
	}' "$2" "$3"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}

# Part 1.
printf '%s\n' "${sizes[@]}" >"$tmp/msglen"
: >"$tmp/mpich.txt"
: >"$tmp/hpcbench.txt"
load_before=$(load before)
hb_log "$load_before"
for ((rep = 1; rep <= REPS; rep++)); do
	hb_log "part 1, run $rep/$REPS: mpiexec -n $NP -bind-to $BIND imbprobe"
	run_or_die "$tmp/probe.out" "$mpiexec" -n "$NP" -bind-to "$BIND" "$tmp/imbprobe" -iter "$ITER" -time "$TIME" "${sizes[@]}"
	awk -F, '$1 == "imbprobe" { printf "%s %s %s\n", $2, $3, ($2 == "PingPong") ? $6 : $7 }' \
		"$tmp/probe.out" >>"$tmp/mpich.txt"
	hb_log "part 1, run $rep/$REPS: hpcbench launch -n $NP --bind-to $BIND -- hpcbench coll --fabric $FABRIC"
	run_or_die "$tmp/coll.out" "$hpcbench" launch -n "$NP" --bind-to "$BIND" -- "$hpcbench" coll --fabric "$FABRIC" -msglen "$tmp/msglen" \
		-iter "$ITER" -time "$TIME" "${benches[@]}" --format csv
	hb_csv_times <"$tmp/coll.out" >>"$tmp/hpcbench.txt"
done
load_after=$(load after)
hb_log "$load_after"
[[ -s $tmp/hpcbench.txt ]] || hb_die "hpcbench coll --format csv printed no rows; its output: $(head -c 500 "$tmp/coll.out")"

{
	printf '\nPart 1: %s ranks bound to %s, hpcbench coll --fabric %s, median of %s runs, microseconds (PingPong: t; others: t_avg)\n' "$NP" "$BIND" "$FABRIC" "$REPS"
	printf '%s; %s\n\n' "$load_before" "$load_after"
	printf '%-10s %9s %12s %12s %9s %9s\n' benchmark bytes MPICH hpcbench hb/MPICH pairs
	for b in "${benches[@]}"; do
		row_sizes=("${sizes[@]}")
		[[ $b == Barrier ]] && row_sizes=(0)
		for s in "${row_sizes[@]}"; do
			m=$(median "$b $s" "$tmp/mpich.txt")
			h=$(median "$b $s" "$tmp/hpcbench.txt")
			printf '%-10s %9s %12s %12s %9s %9s\n' "$b" "$s" "$m" "$h" "$(ratio "$h" "$m")" \
				"$(pair_ratio "$b $s" "$tmp/hpcbench.txt" "$tmp/mpich.txt")"
		done
	done
}

# Part 2.
if [[ $SKIP_TCP == 1 ]]; then
	exit 0
fi
command -v fi_pingpong >/dev/null 2>&1 || hb_die "fi_pingpong not found: install Debian package libfabric-bin"
printf '%s\n' "${fi_sizes[@]}" >"$tmp/fi_msglen"
: >"$tmp/fi.txt"
: >"$tmp/hbtcp.txt"
load_before=$(load before)
for ((rep = 1; rep <= REPS; rep++)); do
	for s in "${fi_sizes[@]}"; do
		hb_log "part 2, run $rep/$REPS: fi_pingpong -p tcp -e msg -S $s -I $FI_ITER"
		fi_pingpong -p tcp -e msg -S "$s" -I "$FI_ITER" >"$tmp/fi_server.out" 2>&1 &
		server_pid=$!
		ok=0
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 0.3
			if fi_pingpong -p tcp -e msg -S "$s" -I "$FI_ITER" 127.0.0.1 >"$tmp/fi_client.out" 2>&1; then
				ok=1
				break
			fi
		done
		wait "$server_pid" || true
		server_pid=
		((ok)) || hb_die "fi_pingpong -p tcp -e msg failed: $(tail -n 3 "$tmp/fi_client.out" | tr '\n' ' ')"
		# The data row follows the "bytes #sent ..." header; usec/xfer is column 7.
		awk -v s="$s" '/^bytes/ { hdr = 1; next } hdr && NF >= 8 { print "PingPong", s, $7; exit }' \
			"$tmp/fi_client.out" >>"$tmp/fi.txt"
	done
	hb_log "part 2, run $rep/$REPS: hpcbench coll --fabric tcp PingPong"
	run_or_die "$tmp/tcp.out" "$hpcbench" launch -n 2 -- "$hpcbench" coll --fabric tcp -msglen "$tmp/fi_msglen" \
		-iter "$FI_ITER" -time "$TIME" PingPong --format csv
	hb_csv_times <"$tmp/tcp.out" >>"$tmp/hbtcp.txt"
done
load_after=$(load after)

{
	printf '\nPart 2: TCP over 127.0.0.1, one-way latency, median of %s runs, microseconds\n' "$REPS"
	printf '%s; %s\n\n' "$load_before" "$load_after"
	printf '%9s %14s %14s %9s %9s\n' bytes fi_pingpong hpcbench hb/fi pairs
	for s in "${fi_sizes[@]}"; do
		f=$(median "PingPong $s" "$tmp/fi.txt")
		h=$(median "PingPong $s" "$tmp/hbtcp.txt")
		printf '%9s %14s %14s %9s %9s\n' "$s" "$f" "$h" "$(ratio "$h" "$f")" \
			"$(pair_ratio "PingPong $s" "$tmp/hbtcp.txt" "$tmp/fi.txt")"
	done
}
