#!/usr/bin/env bash
# bench-fabric.sh: hpcbench fabric pingpong beside libfabric's fi_pingpong,
# both as server and client over 127.0.0.1, the same sizes and iterations.
#
# Cases (CASES picks them), each hpcbench's provider against fi_pingpong's:
#
#   tcp          hpcbench -p tcp              against fi_pingpong -p tcp -e msg
#   ofi-shm-rdm  hpcbench -p ofi:shm -e rdm   against fi_pingpong -p shm -e rdm
#   ofi-tcp-rdm  hpcbench -p ofi:tcp -e rdm   against fi_pingpong -p tcp -e rdm
#   ofi-tcp-msg  hpcbench -p ofi:tcp -e msg   against fi_pingpong -p tcp -e msg
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
# Then -p ucx beside UCX's own ucx_perftest, both as server and client over
# this host, with the same UCX_TLS for both (UCX_NET_DEVICES=lo for tcp),
# interleaved the same way:
#
#   ucx_perftest -p $UCX_PORT                                      (server)
#   ucx_perftest 127.0.0.1 -p $UCX_PORT -t tag_lat|tag_bw -s SIZE -n $UCX_ITER -w $UCX_WARMUP -f
#   hpcbench fabric pingpong|bw -p ucx -B $HB_PORT -S SIZE -I $UCX_ITER   (server)
#   hpcbench fabric pingpong|bw -p ucx -P $HB_PORT -S SIZE -I $UCX_ITER 127.0.0.1
#
# latency: ucx_perftest's 50.0%ile against hpcbench's p50 usec (both one
# way); bandwidth: ucx_perftest's overall MB/s (2^20 bytes) converted to
# 10^6 bytes against hpcbench's MB/sec; per cell the median of the rounds'
# ratios hpcbench/ucx_perftest (targets: latency <= 1.05, bandwidth >= 0.95).
#
# Progress goes to stderr, the tables to stdout. Installs libfabric-bin and
# ucx-utils when missing (needs root then).
#
# Environment:
#   REPS=7                      rounds per size
#   CASES="tcp ofi-shm-rdm ofi-tcp-rdm ofi-tcp-msg"  the cases above (the ofi ones need libfabric1)
#   SIZES="64 1024 4096 65536 1048576"  transfer sizes of the tcp case, bytes
#   OFI_SIZES="8 64 1048576"    transfer sizes of the ofi cases: latency at 8 and 64 B, bandwidth at 1 MiB
#   ITER=10000                  iterations per run (-I of both)
#   FI_PORT=47610 HB_PORT=47611 control ports of the two servers
#   HPCBENCH=PATH               benchmark this binary instead of building ./cmd/hpcbench
#   FI=0                        leave out the fi_pingpong rows
#   UCX_TLS_SET="posix,self sysv,self cma,posix,self tcp shm"  the UCX_TLS of the ucx rows; empty leaves them out;
#                               shm is hpcbench's own -p shm against ucx_perftest with UCX_TLS=posix,self
#   UCX_REPS=5 UCX_ITER=20000 UCX_WARMUP=1000 UCX_PORT=47612
#   UCX_LAT_SIZES="8 4096 65536" UCX_BW_SIZES="65536 1048576"
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-7}
SIZES=${SIZES:-64 1024 4096 65536 1048576}
OFI_SIZES=${OFI_SIZES:-8 64 1048576}
CASES=${CASES:-tcp ofi-shm-rdm ofi-tcp-rdm ofi-tcp-msg}
read -ra cases <<<"$CASES"
ITER=${ITER:-10000}
FI_PORT=${FI_PORT:-47610}
HB_PORT=${HB_PORT:-47611}

FI=${FI:-1}
UCX_TLS_SET=${UCX_TLS_SET-posix,self sysv,self cma,posix,self tcp shm}
UCX_REPS=${UCX_REPS:-5}
UCX_ITER=${UCX_ITER:-20000}
UCX_WARMUP=${UCX_WARMUP:-1000}
UCX_PORT=${UCX_PORT:-47612}
UCX_LAT_SIZES=${UCX_LAT_SIZES:-8 4096 65536}
UCX_BW_SIZES=${UCX_BW_SIZES:-65536 1048576}
if ((FI)); then
	hb_ensure_debs libfabric-bin
	command -v fi_pingpong >/dev/null 2>&1 || hb_die "fi_pingpong not found: install Debian package libfabric-bin"
fi
if [[ -n $UCX_TLS_SET ]]; then
	hb_ensure_debs libucx0 ucx-utils
	command -v ucx_perftest >/dev/null 2>&1 || hb_die "ucx_perftest not found: install Debian package ucx-utils"
fi

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
((FI)) || cases=()
for c in "${cases[@]}"; do
	case $c in
	tcp) fi_args=(-p tcp -e msg) hb_args=(-p tcp) case_sizes=$SIZES ;;
	ofi-shm-rdm) fi_args=(-p shm -e rdm) hb_args=(-p ofi:shm -e rdm) case_sizes=$OFI_SIZES ;;
	ofi-tcp-rdm) fi_args=(-p tcp -e rdm) hb_args=(-p ofi:tcp -e rdm) case_sizes=$OFI_SIZES ;;
	ofi-tcp-msg) fi_args=(-p tcp -e msg) hb_args=(-p ofi:tcp -e msg) case_sizes=$OFI_SIZES ;;
	*) hb_die "CASES: unknown case $c: want tcp, ofi-shm-rdm, ofi-tcp-rdm or ofi-tcp-msg" ;;
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

if ((FI)); then
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
fi

[[ -n $UCX_TLS_SET ]] || exit 0

# ucxrow FILE prints "latency MB/s(10^6)" of ucx_perftest -f's final row:
# iterations, 50.0%ile, average, overall, MB/s average, MB/s overall, ...
ucxrow() {
	awk 'NF == 8 && $1 ~ /^[0-9]+$/ { print $2, $6 * 1.048576; found = 1 } END { if (!found) exit 1 }' "$1" ||
		hb_die "no ucx_perftest row in $1: $(head -c 300 "$1")"
}
# hbrow FILE prints "p50 MB/sec" of hpcbench's first data row (p50 is
# column 9 of pingpong's table; bw's has none and prints its usec/xfer).
hbrow() {
	awk '/^bytes/ { hdr = 1; next } hdr && NF >= 8 { print (NF >= 11 ? $9 : $7), $6; found = 1; exit } END { if (!found) exit 1 }' "$1" ||
		hb_die "no table row in $1: $(head -c 300 "$1")"
}

: >"$tmp/urows"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
read -ra tls_set <<<"$UCX_TLS_SET"
read -ra lat_sizes <<<"$UCX_LAT_SIZES"
read -ra bw_sizes <<<"$UCX_BW_SIZES"
for tls in "${tls_set[@]}"; do
	export UCX_TLS=$tls
	hbp=ucx
	[[ $tls == shm ]] && UCX_TLS=posix,self hbp=shm
	if [[ $tls == tcp ]]; then export UCX_NET_DEVICES=lo; else unset UCX_NET_DEVICES; fi
	for kind in lat bw; do
		if [[ $kind == lat ]]; then ksizes=("${lat_sizes[@]}") pt=tag_lat hb=pingpong; else ksizes=("${bw_sizes[@]}") pt=tag_bw hb=bw; fi
		for s in "${ksizes[@]}"; do
			for ((rep = 1; rep <= UCX_REPS; rep++)); do
				order=(ucx hb)
				((rep % 2 == 0)) && order=(hb ucx)
				for side in "${order[@]}"; do
					hb_log "UCX_TLS=$tls $kind size $s, round $rep/$UCX_REPS: $side"
					if [[ $side == ucx ]]; then
						pair ucx_perftest "$tmp/u.out" ucx_perftest -p "$UCX_PORT" -- \
							ucx_perftest 127.0.0.1 -p "$UCX_PORT" -t "$pt" -s "$s" -n "$UCX_ITER" -w "$UCX_WARMUP" -f
						echo "$tls $kind $s $rep ucx $(ucxrow "$tmp/u.out")" >>"$tmp/urows"
					else
						pair hpcbench "$tmp/hb.out" "$hpcbench" fabric "$hb" -p "$hbp" -B "$HB_PORT" -S "$s" -I "$UCX_ITER" -w "$UCX_WARMUP" -- \
							"$hpcbench" fabric "$hb" -p "$hbp" -P "$HB_PORT" -S "$s" -I "$UCX_ITER" -w "$UCX_WARMUP" 127.0.0.1
						echo "$tls $kind $s $rep hb $(hbrow "$tmp/hb.out")" >>"$tmp/urows"
					fi
				done
			done
		done
	done
done
unset UCX_TLS UCX_NET_DEVICES
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

printf '\n-p ucx against ucx_perftest, same UCX_TLS, %s rounds per cell, %s iterations; load average %s before, %s after, %s CPUs\n' \
	"$UCX_REPS" "$UCX_ITER" "$load_before" "$load_after" "$(nproc)"
printf 'lat: one-way median usec (ucx_perftest 50.0%%ile, hpcbench p50), ratio hb/ucx (target <= 1.05); bw: MB/s (10^6), ratio hb/ucx (target >= 0.95); medians of the rounds\n\n'
awk -v reps="$UCX_REPS" '
function sortv(a, n,   i, j, t) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function med(a, n) { sortv(a, n); return (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
{ k = $1 SUBSEP $2 SUBSEP $3; lat[k, $5, $4] = $6; bw[k, $5, $4] = $7; if (!(k in seen)) { seen[k] = 1; order[nk++] = k } }
END {
	printf "%-16s %4s %9s %12s %12s %9s\n", "UCX_TLS", "test", "bytes", "ucx_perftest", "hpcbench", "hb/ucx"
	for (i = 0; i < nk; i++) {
		split(order[i], f, SUBSEP); n = 0
		for (r = 1; r <= reps; r++) {
			if (!((order[i], "ucx", r) in lat) || !((order[i], "hb", r) in lat)) { print "missing round " r " of " f[1] " " f[2] " " f[3] > "/dev/stderr"; exit 1 }
			if (f[2] == "lat") { u[n] = lat[order[i], "ucx", r]; h[n] = lat[order[i], "hb", r] } else { u[n] = bw[order[i], "ucx", r]; h[n] = bw[order[i], "hb", r] }
			q[n] = h[n] / u[n]; n++
		}
		for (j = 0; j < n; j++) a[j] = u[j]; um = med(a, n)
		for (j = 0; j < n; j++) a[j] = h[j]; hm = med(a, n)
		printf "%-16s %4s %9s %12.3f %12.3f %9.3f\n", f[1], f[2], f[3], um, hm, med(q, n)
	}
}' "$tmp/urows"
