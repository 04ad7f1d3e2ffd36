#!/usr/bin/env bash
# bench-launch.sh: hpcbench launch side by side with MPICH's mpiexec (Hydra)
# and with the floor, a plain C posix_spawn loop (scripts/spawnfloor.c) that
# starts and reaps N copies of a program, each in a session of its own as
# Hydra and hpcbench start ranks. Rows:
#
#   floor N true | mpiexec -n N true | hpcbench launch -n N -- true   N in $NS
#   mpiexec -n N initfinal | hpcbench launch -n N -- initfinal         N in $MPI_NS
#     (initfinal: MPI_Init + MPI_Finalize, cmd/hpcbench/testdata/mpi)
#   floor $WIREUP_N hpcbench version (hpcbench processes that exit at once)
#     | hpcbench launch -n $WIREUP_N -- hpcbench wireup --pattern ring | all
#
# The commands of a row are timed in rounds, one run of each per round in
# turn (the order reversed every other round), with hyperfine -N (no shell in
# between): the machine's speed drifts, so the table gives each command's
# median wall time and, for the ratios, the median over rounds of that
# round's own ratio. Targets: hpcbench <= 1.25x the floor for true, <= 1.0x
# mpiexec for the MPI program, wireup ring <= 1.5x its floor, and wireup all
# completing (a million gets at 1024 ranks).
#
# Every command runs once untimed first (the warm-up) and must exit 0; so
# must every timed run (hyperfine fails on a non-zero exit). A row with a
# command that failed says FAILED, with the command on stderr, and the
# script exits 1; a row is never judged on the commands that did run.
#
# Progress goes to stderr, the table to stdout. Works from any directory.
# Installs mpich, libmpich-dev, gcc and hyperfine when they are missing
# (needs root then).
#
# Environment:
#   REPS=5                   rounds per row
#   WIREUP_REPS=3            rounds for the two wireup rows
#   NS="16 64 256 512 1024"  rank counts for true ("" leaves them out, as for
#                            MPI_NS)
#   MPI_NS="4 16"            rank counts for the MPI program
#   WIREUP_N=1024            rank count for wireup (0 leaves the wireup rows out)
#   SIM_HOSTS="10 100 1000"  simulated hosts: one proxy each on this machine
#                            (--launcher fork), one rank each, against Hydra's
#                            -launcher fork with the same host names (a
#                            multi-node PMI layout, no setup);
#                            "" leaves them out
#   NSHOSTS=2                network-namespace hosts (scripts/nshosts.sh), 2
#                            ranks each, the launcher in the first: Hydra with
#                            -launcher rsh -launcher-exec nsexec, hpcbench with
#                            --rsh nsexec; 0 leaves the row out
#   HOSTS_REPS=3             rounds for the host rows
#   HOSTS_PROG="wireup --pattern ring"
#                            what both launchers run on the hosts (hpcbench's
#                            wireup: PMI put, barrier and get, as MPI_Init)
#   SCALE_CSV=docs/launch-scale.csv SCALE_PNG=docs/launch-scale.png
#                            where the simulated rows' figures go (per
#                            launcher and host count: the median wall time, the
#                            launcher's own CPU time and peak memory) and
#                            their plot; the table prints each launcher's
#                            fitted cost per host (least squares over the rows)
#   HPCBENCH=PATH            benchmark this binary instead of building ./cmd/hpcbench
#   STRICT=1                 exit 1 also when a row misses its target
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

REPS=${REPS:-5}
WIREUP_REPS=${WIREUP_REPS:-3}
NS=${NS-16 64 256 512 1024}
MPI_NS=${MPI_NS-4 16}
WIREUP_N=${WIREUP_N:-1024}
SIM_HOSTS=${SIM_HOSTS-10 100 1000}
NSHOSTS=${NSHOSTS:-2}
HOSTS_REPS=${HOSTS_REPS:-3}
HOSTS_PROG=${HOSTS_PROG:-wireup --pattern ring}
SCALE_CSV=${SCALE_CSV:-docs/launch-scale.csv}
SCALE_PNG=${SCALE_PNG:-docs/launch-scale.png}
STRICT=${STRICT:-0}

hb_ensure_debs mpich libmpich-dev gcc hyperfine

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-launch.XXXXXX")
nsdir=
cleanup() {
	[[ -z $nsdir ]] || "$root/scripts/nshosts.sh" down "$nsdir" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

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

# check CMD... runs a command once, untimed (it doubles as the warm-up run).
# When it fails it shows the command and the end of its output on stderr
# and returns 1, since hyperfine would show neither.
check() {
	local rc=0
	"$@" </dev/null >"$tmp/check.out" 2>&1 || rc=$?
	if ((rc != 0)); then
		tail -n 20 "$tmp/check.out" >&2
		hb_log "FAILED (exit status $rc): $(cmdline "$@")"
		return 1
	fi
}

# measure ROW REPS LABEL=CMDLINE... times the row's commands in REPS rounds,
# one run of each per round, and appends "ROW LABEL ROUND SECONDS" lines to
# $tmp/times. It returns 1, with hyperfine's report on stderr, when a run
# fails.
measure() {
	local row=$1 reps=$2 k arg
	shift 2
	local fwd=("$@") rev=() order
	for ((k = ${#fwd[@]} - 1; k >= 0; k--)); do
		rev+=("${fwd[k]}")
	done
	for ((k = 1; k <= reps; k++)); do
		local args=()
		if ((k % 2)); then order=("${fwd[@]}"); else order=("${rev[@]}"); fi
		for arg in "${order[@]}"; do
			args+=(--command-name "${arg%%=*}" "${arg#*=}")
		done
		if ! hyperfine -N --style basic --warmup 0 --runs 1 --export-csv "$tmp/run.csv" \
			"${args[@]}" >"$tmp/hyperfine.out" 2>&1; then
			tail -n 20 "$tmp/hyperfine.out" >&2
			hb_log "FAILED: a timed run of row $row (round $k) exited non-zero"
			return 1
		fi
		awk -F, -v row="$row" -v k="$k" 'NR > 1 { print row, $1, k, $2 }' "$tmp/run.csv" >>"$tmp/times"
	done
}

# run_row ROW REPS LABEL=CMDLINE... checks, then measures, one row; a row
# that fails is listed in $tmp/failed.
run_row() {
	local row=$1 reps=$2 arg ok=1
	shift 2
	for arg in "$@"; do
		# The command lines are built by cmdline, so eval splits them back.
		eval "check ${arg#*=}" || ok=0
	done
	if ((ok)) && measure "$row" "$reps" "$@"; then
		return 0
	fi
	echo "$row" >>"$tmp/failed"
}

# median ROW LABEL prints the median seconds of LABEL's runs in ROW, or "-".
median() {
	awk -v r="$1" -v l="$2" '$1 == r && $2 == l { print $4 }' "$tmp/times" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pair_ratio ROW A B prints the median over rounds of A's time / B's time.
pair_ratio() {
	awk -v r="$1" -v a="$2" -v b="$3" '$1 == r && $2 == a { ta[$3] = $4 } $1 == r && $2 == b { tb[$3] = $4 }
		END { for (k in ta) if ((k in tb) && tb[k] > 0) print ta[k] / tb[k] }' "$tmp/times" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.2f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >"$tmp/times"
: >"$tmp/failed"
hb_log "mpiexec: $mpiexec ($("$mpiexec" --version 2>/dev/null | awk '/Version:/ { print $2; exit }'))"

for n in $NS; do
	hb_log "true, $n ranks"
	run_row "true-$n" "$REPS" \
		"floor=$(cmdline "$tmp/spawnfloor" "$n" "$true_bin")" \
		"mpiexec=$(cmdline "$mpiexec" -n "$n" "$true_bin")" \
		"hpcbench=$(cmdline "$hpcbench" launch -n "$n" -- "$true_bin")"
done

for n in $MPI_NS; do
	hb_log "initfinal, $n ranks"
	run_row "mpi-$n" "$REPS" \
		"mpiexec=$(cmdline "$mpiexec" -n "$n" "$tmp/initfinal")" \
		"hpcbench=$(cmdline "$hpcbench" launch -n "$n" -- "$tmp/initfinal")"
done

if ((WIREUP_N > 0)); then
	hb_log "wireup, $WIREUP_N ranks"
	run_row ring "$WIREUP_REPS" \
		"floor=$(cmdline "$tmp/spawnfloor" "$WIREUP_N" "$hpcbench" version)" \
		"hpcbench=$(cmdline "$hpcbench" launch -n "$WIREUP_N" -- "$hpcbench" wireup --pattern ring)"
	run_row all "$WIREUP_REPS" \
		"hpcbench=$(cmdline "$hpcbench" launch -n "$WIREUP_N" -- "$hpcbench" wireup --pattern all)"
fi

# usage CMD... runs CMD once (untimed) and prints the launcher's own CPU
# time in ms (user + system of all its threads, not its children's) and
# its peak resident memory in KiB, read from /proc every 10 ms while it
# runs (VmHWM only grows; the last reading before it exits is kept). It
# returns CMD's exit status.
usage() {
	local pid ticks=0 hwm=0 t h rc=0 hz
	hz=$(getconf CLK_TCK)
	"$@" </dev/null >"$tmp/usage.out" 2>&1 &
	pid=$!
	while [[ -r /proc/$pid/stat ]]; do
		t=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) && [[ -n $t ]] && ticks=$t
		h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [[ -n $h ]] && hwm=$h
		grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
		sleep 0.01
	done
	wait "$pid" || rc=$?
	printf '%s %s\n' "$((ticks * 1000 / hz))" "$hwm"
	return "$rc"
}

# host_row ROW HOSTS MPIEXEC_CMDLINE HPCBENCH_CMDLINE times a host row and
# records each launcher's own CPU and memory (usage) in $tmp/usage.
host_row() {
	local r=$1 hosts=$2 m=$3 h=$4 u
	run_row "$r" "$HOSTS_REPS" "mpiexec=$m" "hpcbench=$h"
	grep -qx "$r" "$tmp/failed" && return 0
	for tool in mpiexec hpcbench; do
		local c=$m
		[[ $tool == hpcbench ]] && c=$h
		if u=$(eval "usage $c"); then
			printf '%s %s %s %s\n' "$r" "$tool" "$hosts" "$u" >>"$tmp/usage"
		else
			tail -n 20 "$tmp/usage.out" >&2
			echo "$r" >>"$tmp/failed"
		fi
	done
}

: >"$tmp/usage"
read -r -a prog <<<"$HOSTS_PROG"
for h in $SIM_HOSTS; do
	hb_log "$HOSTS_PROG on $h simulated hosts, one rank each"
	seq -f "sim%g" 1 "$h" >"$tmp/hosts-$h"
	host_row "sim-$h" "$h" \
		"$(cmdline "$mpiexec" -launcher fork -f "$tmp/hosts-$h" -n "$h" -ppn 1 "$hpcbench" "${prog[@]}")" \
		"$(cmdline "$hpcbench" launch -f "$tmp/hosts-$h" --ppn 1 --launcher fork --iface lo -- "$hpcbench" "${prog[@]}")"
done
if ((NSHOSTS > 0)); then
	hb_log "$HOSTS_PROG on $NSHOSTS namespace hosts, 2 ranks each"
	nsdir=$tmp/ns
	"$root/scripts/nshosts.sh" up "$nsdir" "$NSHOSTS" >/dev/null || hb_die "scripts/nshosts.sh up failed"
	mapfile -t nsrows <"$nsdir/hosts"
	ns1=${nsrows[0]%% *}
	addrs=()
	for l in "${nsrows[@]}"; do
		read -r _ a _ <<<"$l"
		addrs+=("$a")
	done
	host_row "ns-$NSHOSTS" "$NSHOSTS" \
		"$(cmdline ip netns exec "$ns1" env HPCBENCH_IFACE=hb0 "$mpiexec" -launcher rsh -launcher-exec "$nsdir/nsexec" -iface hb0 \
			-hosts "$(IFS=,; echo "${addrs[*]}")" -n $((2 * NSHOSTS)) -ppn 2 "$hpcbench" "${prog[@]}")" \
		"$(cmdline ip netns exec "$ns1" "$hpcbench" launch --hosts "$(IFS=,; echo "${addrs[*]/%/:2}")" \
			--rsh "$nsdir/nsexec" --iface hb0 -- "$hpcbench" "${prog[@]}")"
	"$root/scripts/nshosts.sh" down "$nsdir" >/dev/null
	nsdir=
fi

# row KIND ROW N WHAT: one table line. KIND says which target applies: true
# (floor 1.25), mpi (mpiexec 1.0), ring (floor 1.5) or all (completes).
row() {
	local kind=$1 r=$2 n=$3 what=$4 failed=0
	grep -qx "$r" "$tmp/failed" && failed=1
	awk -v kind="$kind" -v n="$n" -v what="$what" -v failed="$failed" \
		-v f="$(median "$r" floor)" -v m="$(median "$r" mpiexec)" -v h="$(median "$r" hpcbench)" \
		-v rm="$(pair_ratio "$r" hpcbench mpiexec)" -v rf="$(pair_ratio "$r" hpcbench floor)" '
	function ms(x) { return x == "-" ? "-" : sprintf("%.1f", x * 1000) }
	BEGIN {
		if (kind == "true") { target = "floor<=1.25" } else if (kind == "mpi") { target = "mpiexec<=1.00" }
		else if (kind == "ring") { target = "floor<=1.50" } else { target = "completes" }
		if (failed) { verdict = "FAILED"; f = m = h = rm = rf = "-" }
		else if (h == "-") verdict = "NOT RUN"
		else if (kind == "true") verdict = (rf + 0 <= 1.25) ? "ok" : "MISS"
		else if (kind == "mpi") verdict = (rm + 0 <= 1.00) ? "ok" : "MISS"
		else if (kind == "ring") verdict = (rf + 0 <= 1.50) ? "ok" : "MISS"
		else verdict = "ok"
		printf "%-22s %5s %10s %10s %10s %10s %8s  %-14s %s\n", what, n, ms(f), ms(m), ms(h), rm, rf, target, verdict
	}'
}

{
	printf '\nmedian wall time in ms (%s rounds; wireup %s); ratios: median of each round'"'"'s own\n' "$REPS" "$WIREUP_REPS"
	printf 'mpiexec = %s; the wireup floor is spawnfloor %s hpcbench version\n\n' "$mpiexec" "$WIREUP_N"
	printf '%-22s %5s %10s %10s %10s %10s %8s  %-14s %s\n' command N floor mpiexec hpcbench \
		hb/mpiexec hb/floor target verdict
	for n in $NS; do
		row true "true-$n" "$n" true
	done
	for n in $MPI_NS; do
		row mpi "mpi-$n" "$n" initfinal
	done
	if ((WIREUP_N > 0)); then
		row ring ring "$WIREUP_N" "wireup --pattern ring"
		row all all "$WIREUP_N" "wireup --pattern all"
	fi
	for h in $SIM_HOSTS; do
		row mpi "sim-$h" "$h" "sim hosts, 1 rank each"
	done
	((NSHOSTS > 0)) && row mpi "ns-$NSHOSTS" "$((2 * NSHOSTS))" "$NSHOSTS ns hosts x 2 ranks"
	if [[ -s $tmp/usage ]]; then
		printf '\nthe launcher'"'"'s own CPU time and peak memory (one untimed run each), and per host\n'
		printf '%-10s %-9s %6s %10s %10s %12s %12s\n' row launcher hosts cpu-ms peak-MiB cpu-ms/host KiB/host
		awk '{ printf "%-10s %-9s %6d %10d %10.1f %12.2f %12.1f\n", $1, $2, $3, $4, $5 / 1024, $4 / $3, $5 / $3 }' "$tmp/usage"
	fi
} | tee "$tmp/table"

# The simulated rows' figures, for docs/: the fit and the plot.
if [[ -n $SIM_HOSTS ]]; then
	{
		echo "hosts,launcher,wall_s,cpu_ms,peak_kib"
		for h in $SIM_HOSTS; do
			for tool in mpiexec hpcbench; do
				u=$(awk -v r="sim-$h" -v t="$tool" '$1 == r && $2 == t { print $4 "," $5 }' "$tmp/usage")
				printf '%s,%s,%s,%s\n' "$h" "$tool" "$(median "sim-$h" "$tool")" "${u:-,}"
			done
		done
	} >"$SCALE_CSV"
	# Least squares of wall time against hosts: the cost per host.
	awk -F, 'NR > 1 && $3 != "-" { n[$2]++; sx[$2] += $1; sy[$2] += $3; sxx[$2] += $1 * $1; sxy[$2] += $1 * $3 }
		END { printf "\nfitted wall time = a + b x hosts (least squares over the simulated rows)\n"
			for (t in n) { d = n[t] * sxx[t] - sx[t] * sx[t]; if (n[t] < 2 || d == 0) continue
				b = (n[t] * sxy[t] - sx[t] * sy[t]) / d; a = (sy[t] - b * sx[t]) / n[t]
				printf "%-9s a %.1f ms  b %.3f ms per host\n", t, a * 1000, b * 1000 } }' "$SCALE_CSV" | tee -a "$tmp/table"
	go run ./scripts/plotscale "$SCALE_CSV" "$SCALE_PNG" || hb_die "plotting $SCALE_CSV failed"
	hb_log "wrote $SCALE_CSV and $SCALE_PNG"
fi

status=0
if [[ -s $tmp/failed ]]; then
	printf '\n%s: rows with a failed command: %s\n' "${0##*/}" "$(tr '\n' ' ' <"$tmp/failed")" >&2
	status=1
fi
if [[ $STRICT == 1 ]] && grep -q 'MISS$' "$tmp/table"; then
	printf '%s: some rows miss their target (STRICT=1)\n' "${0##*/}" >&2
	status=1
fi
exit "$status"
