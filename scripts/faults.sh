#!/usr/bin/env bash
# faults.sh: a fault campaign against hpcbench launch. Runs RUNS jobs of
# coll, ior and mdtest (in turn), each 4 ranks under hpcbench launch, and
# injects into each, at a random moment once its ranks are up, one fault in
# turn:
#
#   kill-rank    SIGKILL to a random rank
#   term-rank    SIGTERM to a random rank
#   stop-rank    SIGSTOP to a random rank (the watchdog's case)
#   kill-spawner SIGKILL to the launcher's spawner process
#   int-launcher SIGINT to the launcher's process group (Ctrl-C)
#
# and checks every run:
#
#   - the launcher exits non-zero (130 for int-launcher), within LIMIT
#     seconds of the fault (PHASE_TIMEOUT + SLACK for stop-rank);
#   - its stderr names the right party (the rank and its signal, the
#     spawner, the interruption);
#   - no process of the job is left (every process the job started carries
#     HB_FAULT_TAG in its environment; /proc is searched for it);
#   - no new file is left in /dev/shm;
#   - the archive (--archive) is either absent or a whole result that
#     hpcbench report reads, and no temporary file is left beside it.
#
# Then, as root, the same across two hosts (scripts/nshosts.sh: network
# namespaces on one bridge, each with its host name), HOST_RUNS jobs of 4
# ranks, 2 a host, under the launchers clusters run across hosts, MPICH's
# Hydra (mpiexec.mpich -launcher rsh) and Open MPI's mpirun (PMIx; with
# OOB keepalives of 1 s, so that it notices a host that went silent), and
# hpcbench's own (launch --hosts, one proxy per host through --rsh
# nsexec), in turn, each with one fault on a rank of the second host:
#
#   kill-rank    SIGKILL to it
#   stop-rank    SIGSTOP to it
#   link-down    the second host's link set down (both its ranks gone
#                silent), set up again once the job has ended
#   kill-proxy   (hpcbench launch only, its first fault) SIGKILL to the
#                second host's proxy, which must end the job naming the
#                host
#
# checked as above (exit, time, leftovers in every namespace, /dev/shm;
# after link-down, the cut host's processes, which nobody can reach, are
# given PHASE_TIMEOUT + SLACK to end on their own deadlines),
# the time limit of stop-rank and link-down being 3 × PHASE_TIMEOUT + SLACK:
# a silent rank is found PHASE_TIMEOUT after a peer begins to wait for it,
# and that may be a while after the fault (coll's tables of 2 ranks go on
# without ranks 2 and 3; measured up to 7 s with 3s), and stderr naming the rank and its host: hpcbench's line
# ("waited 3s for rank 2 on nshost2") or the launcher's (Open MPI: "rank 2
# with PID N on node ADDR"). Hydra 4.0.2 ends a job whose rank was killed
# on another host within about 60 ms, with an assertion of its proxy and
# no name, before any rank can say which peer died: for that one case
# only the exit, the time and the leftovers are checked.
#
# A job that outlives HANG seconds after its fault is a hang: it is killed
# (its processes, found by the tag) and counted as failed. A job whose
# ranks could not be found, or that ended before the fault, is counted
# apart (not run) and does not pass either.
#
# Prints one line per run and the counts per fault; exits 1 when any run
# failed or did not run. Works from any directory; only ever signals
# processes it started (found by their tag), never by name.
#
# Environment:
#   RUNS=50              jobs to run (scripts/test.sh runs 10)
#   SEED=$RANDOM         seed of the random choices (printed, to replay)
#   PHASE_TIMEOUT=3s     the launcher's --phase-timeout (stop-rank's deadline)
#   LIMIT=5              seconds from a fault to the launcher's exit
#   SLACK=1              seconds after the deadline for stop-rank
#   HANG=30              seconds after which a job counts as hung
#   HPCBENCH=PATH        test this binary instead of building ./cmd/hpcbench
#   DIR=$TMPDIR or /tmp  where the jobs' files go
#   VERBOSE=0            1: print each failed run's stderr
#   HOST_RUNS=6          jobs across hosts (0 skips them; they need root,
#                        ip, unshare and mpiexec.mpich or mpirun.openmpi)
#   PRIVATE_SHM=1        as root, run in a mount namespace of its own with a
#                        fresh /dev/shm (0: the host's, where other work's
#                        files count as leftovers)
set -euo pipefail
export LC_ALL=C

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(hb_repo_root)
cd "$root"

RUNS=${RUNS:-50}
SEED=${SEED:-$RANDOM}
PHASE_TIMEOUT=${PHASE_TIMEOUT:-3s}
LIMIT=${LIMIT:-5}
SLACK=${SLACK:-1}
HANG=${HANG:-30}
VERBOSE=${VERBOSE:-0}
HOST_RUNS=${HOST_RUNS:-6}
DIR=${DIR:-${TMPDIR:-/tmp}}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { printf '%s: RUNS=%s: want a whole number >= 1\n' "${0##*/}" "$RUNS" >&2; exit 2; }
[[ $SEED =~ ^[0-9]+$ ]] || { printf '%s: SEED=%s: want a whole number\n' "${0##*/}" "$SEED" >&2; exit 2; }
[[ $PHASE_TIMEOUT =~ ^[1-9][0-9]*s$ ]] || { printf '%s: PHASE_TIMEOUT=%s: want whole seconds such as 3s\n' "${0##*/}" "$PHASE_TIMEOUT" >&2; exit 2; }
for v in LIMIT SLACK HANG; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { printf '%s: %s=%s: want a whole number of seconds >= 1\n' "${0##*/}" "$v" "${!v}" >&2; exit 2; }
done
[[ $HOST_RUNS =~ ^[0-9]+$ ]] || { printf '%s: HOST_RUNS=%s: want a whole number (0 skips)\n' "${0##*/}" "$HOST_RUNS" >&2; exit 2; }
[[ $VERBOSE == [01] ]] || { printf '%s: VERBOSE=%s: want 0 or 1\n' "${0##*/}" "$VERBOSE" >&2; exit 2; }
[[ -d $DIR && -w $DIR ]] || { printf '%s: DIR=%s: not a writable directory\n' "${0##*/}" "$DIR" >&2; exit 2; }
RANDOM=$SEED

# A /dev/shm of its own: as root, the campaign runs in a mount namespace of
# its own with a fresh tmpfs on /dev/shm, so that a new file there is one
# its jobs left, whatever else runs on the machine at the time (another
# test suite, a benchmark killed mid-run). PRIVATE_SHM=0 keeps the host's.
if [[ ${PRIVATE_SHM:-1} == 1 && -z ${HB_FAULTS_OWN_SHM:-} && $EUID == 0 ]] && command -v unshare >/dev/null 2>&1; then
	exec unshare --mount --propagation private -- env HB_FAULTS_OWN_SHM=1 SEED="$SEED" \
		bash -c 'mount -t tmpfs -o mode=1777 hb-faults-shm /dev/shm && exec "$0" "$@"' "${BASH_SOURCE[0]}" "$@"
fi

tmp=$(mktemp -d "$DIR/faults.XXXXXX")
tag_base="faults-$$-$SEED"
cleanup() {
	local p
	for p in $(tagged "$tag_base"); do kill -KILL "$p" 2>/dev/null || true; done
	[[ -f $tmp/hosts/hosts ]] && scripts/nshosts.sh down "$tmp/hosts"
	rm -rf "$tmp"
}
trap cleanup EXIT

hpcbench=${HPCBENCH:-}
if [[ -z $hpcbench ]]; then
	hb_ensure_go
	hb_log "building hpcbench"
	CGO_ENABLED=0 go build -o "$tmp/hpcbench" ./cmd/hpcbench
	hpcbench=$tmp/hpcbench
fi
[[ -x $hpcbench ]] || hb_die "HPCBENCH=$hpcbench: not an executable file"

# tagged PREFIX prints the pids of the processes whose environment holds
# HB_FAULT_TAG=PREFIX... (the job's launcher, spawner and ranks).
tagged() {
	local e p
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[[ $p == "$$" || $p == "$BASHPID" ]] && continue
		if grep -qz "^HB_FAULT_TAG=$1" "$e" 2>/dev/null; then
			printf '%s\n' "$p"
		fi
	done
}

# envvar PID NAME prints NAME's value in PID's environment.
envvar() {
	{ tr "\0" "\n" <"/proc/$1/environ"; } 2>/dev/null | sed -n "s/^$2=//p" | head -n 1
}

# job_cmd BENCH WORKDIR prints the benchmark's command line, one argument
# per line: long enough (tens of seconds) that every fault lands in it.
job_cmd() {
	case $1 in
	coll) printf '%s\n' coll -iter 100000 -time 30 -msglog 0:16 Allreduce Alltoall Bcast ;;
	ior) printf '%s\n' ior -a POSIX -F -b 16m -t 1m -w -r -i 200 -o "$2/ior" ;;
	mdtest) printf '%s\n' mdtest -n 500 -i 200 -F -w 1024 -e 1024 -d "$2/md" ;;
	esac
}

# named FAULT RANK prints the extended regular expression stderr must match.
named() {
	case $1 in
	kill-rank) printf 'rank %s was killed by (signal [0-9]+ \\()?SIGKILL' "$2" ;;
	term-rank) printf 'rank %s was killed by (signal [0-9]+ \\()?SIGTERM' "$2" ;;
	stop-rank) printf 'rank %s .*stopped' "$2" ;;
	kill-spawner) printf 'spawner .*(killed|died|exited)' ;;
	int-launcher) printf 'interrupted \\(SIGINT\\)' ;;
	esac
}

# kill_job LPID TAG kills the job: the launcher's process group and every
# process TAG marks (stopped ones continued first, so they die now).
kill_job() {
	local p
	for p in $(tagged "$2"); do kill -CONT "$p" 2>/dev/null || true; done
	kill -KILL -- "-$1" 2>/dev/null || true
	for p in $(tagged "$2"); do kill -KILL "$p" 2>/dev/null || true; done
}

# await_launcher LPID T0 TAG waits for the launcher LPID to end, at most
# HANG seconds after T0 (the fault, date +%s%N); sets t1 to when it ended
# and hung to 1 (after killing the job) when it outlived HANG.
await_launcher() {
	hung=0
	while kill -0 "$1" 2>/dev/null; do
		if (($(date +%s%N) - $2 > HANG * 1000000000)); then
			hung=1
			break
		fi
		# A reaped launcher is gone; an exited one not yet waited for is a zombie.
		[[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == Z ]] && break
		sleep 0.02
	done
	t1=$(date +%s%N)
	if ((hung)); then kill_job "$1" "$3"; fi
}

# check_leftovers TAG adds to problems the processes TAG still marks
# (killing them) and anything new in /dev/shm.
check_leftovers() {
	local left p shm_new
	left=$(tagged "$1" | tr '\n' ' ')
	if [[ -n $left ]]; then
		problems+=("processes left: $left")
		for p in $left; do kill -CONT "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
	fi
	shm_new=$(comm -13 <(printf '%s\n' "$shm_before") <(ls -A /dev/shm | sort) | tr '\n' ' ')
	[[ -z $shm_new ]] || problems+=("left in /dev/shm: $shm_new")
}

faults=(kill-rank term-rank stop-rank kill-spawner int-launcher)
benches=(coll ior mdtest)
declare -A ran passed
for f in "${faults[@]}"; do ran[$f]=0 passed[$f]=0; done
notrun=0 failed=0
shm_before=$(ls -A /dev/shm | sort)
hb_log "seed $SEED, $RUNS runs, --phase-timeout $PHASE_TIMEOUT"

for ((i = 0; i < RUNS; i++)); do
	fault=${faults[i % ${#faults[@]}]}
	bench=${benches[i % ${#benches[@]}]} # 3 and 5 are coprime: 15 runs make every pair
	work=$tmp/run$i
	mkdir -p "$work"
	tag=$tag_base-$i
	mapfile -t args < <(job_cmd "$bench" "$work")
	HB_FAULT_TAG=$tag setsid "$hpcbench" launch -n 4 --phase-timeout "$PHASE_TIMEOUT" -- \
		"$hpcbench" "${args[@]}" --archive "$work/result.json" \
		</dev/null >"$work/stdout" 2>"$work/stderr" &
	lpid=$!
	# Wait for the four ranks (and the spawner) to be up.
	ranks=() spawner=""
	for ((w = 0; w < 100; w++)); do
		ranks=() spawner=""
		for p in $(tagged "$tag"); do
			[[ $p == "$lpid" ]] && continue
			if { tr "\0" " " <"/proc/$p/cmdline"; } 2>/dev/null | grep -q " __spawn "; then
				spawner=$p
			elif r=$(envvar "$p" PMI_RANK) && [[ -n $r ]]; then
				ranks[r]=$p
			fi
		done
		((${#ranks[@]} == 4)) && [[ -n $spawner ]] && break
		sleep 0.05
	done
	victim_rank=$((RANDOM % 4))
	reason=""
	if ((${#ranks[@]} != 4)) || [[ -z $spawner ]]; then
		reason="found ${#ranks[@]} of 4 ranks and spawner '${spawner}'"
	else
		# A random moment in the first 2 s of the run.
		sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
		sleep "$((RANDOM % 2))"
		if ! kill -0 "$lpid" 2>/dev/null; then
			reason="the job ended before the fault"
		fi
	fi
	if [[ -n $reason ]]; then
		kill_job "$lpid" "$tag"
		wait "$lpid" 2>/dev/null || true
		notrun=$((notrun + 1))
		printf 'run %2d %-6s %-12s NOT RUN: %s\n' "$i" "$bench" "$fault" "$reason"
		continue
	fi
	t0=$(date +%s%N)
	case $fault in
	kill-rank) kill -KILL "${ranks[victim_rank]}" ;;
	term-rank) kill -TERM "${ranks[victim_rank]}" ;;
	stop-rank) kill -STOP "${ranks[victim_rank]}" ;;
	kill-spawner) kill -KILL "$spawner" ;;
	int-launcher) kill -INT -- "-$lpid" ;;
	esac
	await_launcher "$lpid" "$t0" "$tag"
	rc=0
	wait "$lpid" || rc=$?
	elapsed_ms=$(((t1 - t0) / 1000000))
	sleep 0.3 # let the kernel finish tearing the job's processes down
	problems=()
	limit_ms=$((LIMIT * 1000))
	[[ $fault == stop-rank ]] && limit_ms=$(((${PHASE_TIMEOUT%s} + SLACK) * 1000))
	if ((hung)); then
		problems+=("hung: still running ${HANG}s after the fault")
	else
		((rc != 0)) || problems+=("exit 0")
		[[ $fault != int-launcher || $rc == 130 ]] || problems+=("exit $rc, want 130")
		((elapsed_ms <= limit_ms)) || problems+=("exit after ${elapsed_ms} ms, want <= ${limit_ms}")
	fi
	want=$(named "$fault" "$victim_rank")
	grep -Eq "$want" "$work/stderr" || problems+=("stderr does not match /$want/")
	check_leftovers "$tag"
	if [[ -e $work/result.json ]] && ! "$hpcbench" report "$work/result.json" >/dev/null 2>"$work/report.err"; then
		problems+=("half-written archive: $(head -n 1 "$work/report.err")")
	fi
	stray=$(find "$work" -maxdepth 1 -name '*result.json?*' -printf '%f ')
	[[ -z $stray ]] || problems+=("temporary files left: $stray")
	ran[$fault]=$((ran[$fault] + 1))
	if ((${#problems[@]} == 0)); then
		passed[$fault]=$((passed[$fault] + 1))
		printf 'run %2d %-6s %-12s rank %d  exit %3d after %5d ms  ok\n' "$i" "$bench" "$fault" "$victim_rank" "$rc" "$elapsed_ms"
	else
		failed=$((failed + 1))
		printf 'run %2d %-6s %-12s rank %d  exit %3d after %5d ms  FAILED: %s\n' "$i" "$bench" "$fault" "$victim_rank" "$rc" "$elapsed_ms" "$(IFS=';'; echo "${problems[*]}")"
		if ((VERBOSE)); then sed 's/^/    | /' "$work/stderr"; fi
	fi
	rm -rf "$work"
done

# Across hosts.
host_launchers=()
if ((HOST_RUNS > 0)); then
	if [[ $(id -u) != 0 ]] || ! command -v ip >/dev/null || ! command -v unshare >/dev/null; then
		hb_log "faults across hosts not run: this machine forbids network namespaces here (they need root, ip and unshare)"
		HOST_RUNS=0
	else
		command -v mpiexec.mpich >/dev/null && host_launchers+=(hydra)
		command -v mpirun.openmpi >/dev/null && host_launchers+=(openmpi)
		host_launchers+=(hpcbench)
		if ((${#host_launchers[@]} == 0)); then
			hb_log "faults across hosts not run: neither mpiexec.mpich (mpich) nor mpirun.openmpi (openmpi-bin) is installed"
			notrun=$((notrun + HOST_RUNS))
			HOST_RUNS=0
		fi
	fi
fi
host_faults=(kill-rank stop-rank link-down)
proxy_faults=(kill-proxy "${host_faults[@]}") # hpcbench launch's, its proxy's death first
for f in "${proxy_faults[@]}"; do ran[hosts-$f]=0 passed[hosts-$f]=0; done
if ((HOST_RUNS > 0)); then
	scripts/nshosts.sh up "$tmp/hosts" 2 $$ >/dev/null
	read -r ns1 addr1 name1 < <(sed -n 1p "$tmp/hosts/hosts")
	read -r ns2 addr2 name2 < <(sed -n 2p "$tmp/hosts/hosts")
	hb_log "across hosts: $HOST_RUNS runs on $name1 ($addr1) and $name2 ($addr2) under ${host_launchers[*]}"
fi
for ((i = 0; i < HOST_RUNS; i++)); do
	launcher=${host_launchers[i % ${#host_launchers[@]}]}
	fault=${host_faults[(i / ${#host_launchers[@]}) % ${#host_faults[@]}]}
	[[ $launcher == hpcbench ]] && fault=${proxy_faults[(i / ${#host_launchers[@]}) % ${#proxy_faults[@]}]}
	bench=${benches[(i + i / ${#host_launchers[@]}) % ${#benches[@]}]} # each launcher meets every benchmark in turn
	work=$tmp/hrun$i
	mkdir -p "$work"
	tag=$tag_base-h$i
	mapfile -t args < <(job_cmd "$bench" "$work")
	case $launcher in
	hydra) lcmd=(mpiexec.mpich -launcher rsh -launcher-exec "$tmp/hosts/nsexec" -iface hb0 -hosts "$addr1,$addr2" -n 4 -ppn 2) ;;
	openmpi) lcmd=(mpirun.openmpi --allow-run-as-root --oversubscribe --mca plm_rsh_agent "$tmp/hosts/nsexec"
		--mca oob_tcp_if_include hb0 --mca oob_tcp_keepalive_time 1 --mca oob_tcp_keepalive_intvl 1
		--mca oob_tcp_keepalive_probes 2 -x HPCBENCH_IFACE -x HB_FAULT_TAG --host "$addr1:2,$addr2:2" -n 4) ;;
	hpcbench) lcmd=("$hpcbench" launch --hosts "$addr1:2,$addr2:2" --rsh "$tmp/hosts/nsexec" --iface hb0 -n 4 --) ;;
	esac
	# The launcher runs on the first host, with its name, as a user's would.
	HB_FAULT_TAG=$tag HPCBENCH_IFACE=hb0 setsid ip netns exec "$ns1" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$name1" \
		"${lcmd[@]}" "$hpcbench" "${args[@]}" --phase-timeout "$PHASE_TIMEOUT" \
		</dev/null >"$work/stdout" 2>"$work/stderr" &
	lpid=$!
	ranks=()
	for ((w = 0; w < 200; w++)); do
		ranks=()
		for p in $(tagged "$tag"); do
			{ tr "\0" " " <"/proc/$p/cmdline"; } 2>/dev/null | grep -q "^$hpcbench $bench " || continue
			r=$(envvar "$p" PMI_RANK)
			[[ -n $r ]] || r=$(envvar "$p" PMIX_RANK)
			[[ -n $r ]] && ranks[r]=$p
		done
		((${#ranks[@]} == 4)) && break
		sleep 0.05
	done
	victim_rank=$((2 + RANDOM % 2)) # on the second host
	reason=""
	if ((${#ranks[@]} != 4)); then
		reason="found ${#ranks[@]} of 4 ranks"
	else
		sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
		sleep "$((RANDOM % 2))"
		kill -0 "$lpid" 2>/dev/null || reason="the job ended before the fault"
	fi
	if [[ -n $reason ]]; then
		kill_job "$lpid" "$tag"
		wait "$lpid" 2>/dev/null || true
		notrun=$((notrun + 1))
		printf 'host run %2d %-7s %-6s %-10s NOT RUN: %s\n' "$i" "$launcher" "$bench" "$fault" "$reason"
		continue
	fi
	t0=$(date +%s%N)
	case $fault in
	kill-rank) kill -KILL "${ranks[victim_rank]}" ;;
	stop-rank) kill -STOP "${ranks[victim_rank]}" ;;
	link-down) ip -n "$ns2" link set hb0 down ;;
	kill-proxy)
		# The second host's proxy: the tagged hpcbench __proxy in its namespace.
		for p in $(tagged "$tag"); do
			{ tr "\0" " " <"/proc/$p/cmdline"; } 2>/dev/null | grep -q "__proxy" || continue
			[[ $(ip netns identify "$p" 2>/dev/null) == "$ns2" ]] && kill -KILL "$p"
		done
		;;
	esac
	await_launcher "$lpid" "$t0" "$tag"
	[[ $fault == link-down ]] && ip -n "$ns2" link set hb0 up
	rc=0
	wait "$lpid" || rc=$?
	elapsed_ms=$(((t1 - t0) / 1000000))
	sleep 0.3
	[[ $fault == stop-rank ]] && { kill -CONT "${ranks[victim_rank]}" 2>/dev/null || true; } # hpcbench launch has killed it
	problems=()
	limit_ms=$((LIMIT * 1000))
	[[ $fault != kill-rank ]] && limit_ms=$(((3 * ${PHASE_TIMEOUT%s} + SLACK) * 1000))
	if ((hung)); then
		problems+=("hung: still running ${HANG}s after the fault")
	else
		((rc != 0)) || problems+=("exit 0")
		((elapsed_ms <= limit_ms)) || problems+=("exit after ${elapsed_ms} ms, want <= ${limit_ms}")
	fi
	case $fault in
	kill-rank) want="rank $victim_rank on $name2|rank $victim_rank with PID [0-9]+ on node $addr2|rank $victim_rank on host $addr2" ;;
	stop-rank) want="waited [0-9.]+m?s for rank $victim_rank on ($name2|host $addr2)" ;;
	link-down) want="waited [0-9.]+m?s for rank [23] on $name2|lost communication with a remote daemon|host $addr2: proxy lost|host $addr2: no heartbeat" ;;
	kill-proxy) want="host $addr2: proxy lost" ;;
	esac
	if [[ $launcher == hydra && $fault == kill-rank ]]; then
		want="" # Hydra names nothing (see the top of this script)
	fi
	[[ -z $want ]] || grep -Eq "$want" "$work/stderr" || problems+=("stderr does not match /$want/")
	if [[ $fault == link-down ]]; then
		# The cut host's processes cannot be told: its ranks end at their
		# own stall deadline, its launcher daemon (orted) when its
		# keepalives fail. Give them that long, then look.
		for ((w = 0; w < (${PHASE_TIMEOUT%s} + SLACK) * 10; w++)); do
			[[ -z $(tagged "$tag") ]] && break
			sleep 0.1
		done
	fi
	check_leftovers "$tag"
	ran[hosts-$fault]=$((ran[hosts-$fault] + 1))
	if ((${#problems[@]} == 0)); then
		passed[hosts-$fault]=$((passed[hosts-$fault] + 1))
		printf 'host run %2d %-7s %-6s %-10s rank %d  exit %3d after %5d ms  ok\n' "$i" "$launcher" "$bench" "$fault" "$victim_rank" "$rc" "$elapsed_ms"
	else
		failed=$((failed + 1))
		printf 'host run %2d %-7s %-6s %-10s rank %d  exit %3d after %5d ms  FAILED: %s\n' "$i" "$launcher" "$bench" "$fault" "$victim_rank" "$rc" "$elapsed_ms" "$(IFS=';'; echo "${problems[*]}")"
		if ((VERBOSE)); then sed 's/^/    | /' "$work/stderr"; fi
	fi
	rm -rf "$work"
done

printf '\n%-16s %5s %7s\n' fault runs passed
for f in "${faults[@]}"; do printf '%-16s %5d %7d\n' "$f" "${ran[$f]}" "${passed[$f]}"; done
for f in "${proxy_faults[@]}"; do printf '%-16s %5d %7d\n' "hosts-$f" "${ran[hosts-$f]}" "${passed[hosts-$f]}"; done
total=$((RUNS + HOST_RUNS - notrun))
printf '%-16s %5d %7d   (seed %s; %d not run)\n' total "$total" $((total - failed)) "$SEED" "$notrun"
((failed == 0 && notrun == 0))
