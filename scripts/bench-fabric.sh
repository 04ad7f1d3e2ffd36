#!/usr/bin/env bash
# bench-fabric.sh: hpcbench fabric pingpong beside libfabric's fi_pingpong,
# both as server and client over 127.0.0.1, the same sizes and iterations.
#
# Cases (CASES picks them), each hpcbench's provider against fi_pingpong's:
#
#   tcp          hpcbench -p tcp              against fi_pingpong -p tcp -e msg
#   ofi-shm-rdm  hpcbench -p ofi:shm -e rdm   against fi_pingpong -p shm -e rdm
#   ofi-tcp-rdm  hpcbench -p ofi:tcp -e rdm   against fi_pingpong -p tcp -e rdm
#
# For every case, size and every one of REPS rounds, interleaved:
#
#   fi_pingpong -p P -e E -B $FI_PORT -S SIZE -I $ITER       (server)
#   fi_pingpong -p P -e E -P $FI_PORT -S SIZE -I $ITER 127.0.0.1
#   hpcbench fabric pingpong -p HP -B $HB_PORT -S SIZE -I $ITER  (server)
#   hpcbench fabric pingpong -p HP -P $HB_PORT -S SIZE -I $ITER 127.0.0.1
#
# (which side goes first alternates by round), and reads usec/xfer (the
# one-way latency) and MB/sec from the client's table: both print
# fi_pingpong's layout. It prints per size, for each side, the p50 and p99
# over the rounds of the latency (the run-to-run spread), then the median
# of the rounds' own ratios hpcbench/fi_pingpong for latency (lower is
# better for hpcbench) and for bandwidth (higher is better). Every command's
# exit status is checked: a round that did not run fails the script.
# fi_pingpong does no warm-up; hpcbench runs its default 10 untimed
# iterations first.
#
# Progress goes to stderr, the table to stdout. Installs libfabric-bin when
# missing (needs root then).
#
# Environment:
#   REPS=7                      rounds per size
#   CASES="tcp ofi-shm-rdm ofi-tcp-rdm"  the cases above (the ofi ones need libfabric1)
#   SIZES="64 1024 4096 65536 1048576"  transfer sizes of the tcp case, bytes
#   OFI_SIZES="8 64 1048576"    transfer sizes of the ofi cases: latency at 8 and 64 B, bandwidth at 1 MiB
#   ITER=10000                  iterations per run (-I of both)
#   FI_PORT=47610 HB_PORT=47611 control ports of the two servers
#   HPCBENCH=PATH               benchmark this binary instead of building ./cmd/hpcbench
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-7}
SIZES=${SIZES:-64 1024 4096 65536 1048576}
OFI_SIZES=${OFI_SIZES:-8 64 1048576}
CASES=${CASES:-tcp ofi-shm-rdm ofi-tcp-rdm}
read -ra cases <<<"$CASES"
ITER=${ITER:-10000}
FI_PORT=${FI_PORT:-47610}
HB_PORT=${HB_PORT:-47611}

hb_ensure_debs libfabric-bin
command -v fi_pingpong >/dev/null 2>&1 || hb_die "fi_pingpong not found: install Debian package libfabric-bin"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-fabric.XXXXXX")
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	[[ -n ${KEEP:-} ]] && cp "$tmp/rows" "$KEEP"
	rm -rf "$tmp"
}
trap cleanup EXIT

hpcbench=$(hb_hpcbench "$tmp")
"$hpcbench" fabric pingpong --help >/dev/null 2>&1 || hb_die "this hpcbench has no 'fabric pingpong'"

# pair NAME OUT SERVER... -- CLIENT...: starts the server, runs the client
# until it connects (the server may not listen yet), waits for the server,
# and fails unless both exited 0. The client's table goes to OUT.
pair() {
	local name=$1 out=$2
	shift 2
	local -a server=() client=()
	while [[ $1 != -- ]]; do
		server+=("$1")
		shift
	done
	shift
	client=("$@")
	"${server[@]}" >"$tmp/server.out" 2>&1 &
	server_pid=$!
	local ok=0
	for _ in $(seq 1 50); do
		sleep 0.2
		if "${client[@]}" >"$out" 2>"$tmp/client.err"; then
			ok=1
			break
		fi
	done
	local rc=0
	wait "$server_pid" || rc=$?
	server_pid=
	((ok)) || hb_die "$name: the client failed: $(tail -n 3 "$tmp/client.err" | tr '\n' ' ')"
	((rc == 0)) || hb_die "$name: the server exited $rc: $(tail -n 3 "$tmp/server.out" | tr '\n' ' ')"
}

# row FILE prints "usec/xfer MB/sec" of the first data row of a table.
row() {
	awk '/^bytes/ { hdr = 1; next } hdr && NF >= 8 { print $7, $6; found = 1; exit } END { if (!found) exit 1 }' "$1" ||
		hb_die "no table row in $1: $(head -c 300 "$1")"
}

: >"$tmp/rows"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in "${cases[@]}"; do
	case $c in
	tcp) fi_args=(-p tcp -e msg) hb_args=(-p tcp) case_sizes=$SIZES ;;
	ofi-shm-rdm) fi_args=(-p shm -e rdm) hb_args=(-p ofi:shm -e rdm) case_sizes=$OFI_SIZES ;;
	ofi-tcp-rdm) fi_args=(-p tcp -e rdm) hb_args=(-p ofi:tcp -e rdm) case_sizes=$OFI_SIZES ;;
	*) hb_die "CASES: unknown case $c: want tcp, ofi-shm-rdm or ofi-tcp-rdm" ;;
	esac
	read -ra sizes <<<"$case_sizes"
	for s in "${sizes[@]}"; do
		for ((rep = 1; rep <= REPS; rep++)); do
			order=(fi hb)
			((rep % 2 == 0)) && order=(hb fi)
			for side in "${order[@]}"; do
				hb_log "$c, size $s, round $rep/$REPS: $side"
				if [[ $side == fi ]]; then
					pair fi_pingpong "$tmp/fi.out" fi_pingpong "${fi_args[@]}" -B "$FI_PORT" -S "$s" -I "$ITER" -- \
						fi_pingpong "${fi_args[@]}" -P "$FI_PORT" -S "$s" -I "$ITER" 127.0.0.1
					echo "$c $s $rep fi $(row "$tmp/fi.out")" >>"$tmp/rows"
				else
					pair hpcbench "$tmp/hb.out" "$hpcbench" fabric pingpong "${hb_args[@]}" -B "$HB_PORT" -S "$s" -I "$ITER" -- \
						"$hpcbench" fabric pingpong "${hb_args[@]}" -P "$HB_PORT" -S "$s" -I "$ITER" 127.0.0.1
					echo "$c $s $rep hb $(row "$tmp/hb.out")" >>"$tmp/rows"
				fi
			done
		done
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

printf 'over 127.0.0.1, %s rounds per size, %s iterations; load average %s before, %s after, %s CPUs\n' \
	"$REPS" "$ITER" "$load_before" "$load_after" "$(nproc)"
printf 'latency: usec/xfer (one way); p50 and p99 over the rounds; ratios: median of the rounds'"'"' hpcbench/fi_pingpong\n\n'
awk -v reps="$REPS" '
function sortv(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function pct(a, n, p,   r) { sortv(a, n); r = int(p * n + 0.999999); if (r < 1) r = 1; return a[r - 1] }
function med(a, n) { sortv(a, n); return (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
{ k = $1 " " $2; lat[k, $4, $3] = $5; bw[k, $4, $3] = $6; if (!(k in seen)) { seen[k] = 1; order[ns++] = k } }
END {
	printf "%-12s %9s %10s %10s %10s %10s %9s %9s\n", "case", "bytes", "fi p50", "fi p99", "hb p50", "hb p99", "lat hb/fi", "bw hb/fi"
	for (j = 0; j < ns; j++) {
		s = order[j]; n = 0
		for (r = 1; r <= reps; r++) {
			if (!((s, "fi", r) in lat) || !((s, "hb", r) in lat)) { print "missing round " r " of size " s > "/dev/stderr"; exit 1 }
			fl[n] = lat[s, "fi", r]; hl[n] = lat[s, "hb", r]
			lr[n] = lat[s, "hb", r] / lat[s, "fi", r]; br[n] = bw[s, "hb", r] / bw[s, "fi", r]; n++
		}
		for (i = 0; i < n; i++) { a[i] = fl[i] } f50 = pct(a, n, 0.5); f99 = pct(a, n, 0.99)
		for (i = 0; i < n; i++) { a[i] = hl[i] } h50 = pct(a, n, 0.5); h99 = pct(a, n, 0.99)
		split(s, cs, " ")
		printf "%-12s %9s %10.2f %10.2f %10.2f %10.2f %9.3f %9.3f\n", cs[1], cs[2], f50, f99, h50, h99, med(lr, n), med(br, n)
	}
}' "$tmp/rows"
