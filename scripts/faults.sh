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
DIR=${DIR:-${TMPDIR:-/tmp}}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { printf '%s: RUNS=%s: want a whole number >= 1\n' "${0##*/}" "$RUNS" >&2; exit 2; }
[[ $SEED =~ ^[0-9]+$ ]] || { printf '%s: SEED=%s: want a whole number\n' "${0##*/}" "$SEED" >&2; exit 2; }
[[ $PHASE_TIMEOUT =~ ^[1-9][0-9]*s$ ]] || { printf '%s: PHASE_TIMEOUT=%s: want whole seconds such as 3s\n' "${0##*/}" "$PHASE_TIMEOUT" >&2; exit 2; }
for v in LIMIT SLACK HANG; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { printf '%s: %s=%s: want a whole number of seconds >= 1\n' "${0##*/}" "$v" "${!v}" >&2; exit 2; }
done
[[ $VERBOSE == [01] ]] || { printf '%s: VERBOSE=%s: want 0 or 1\n' "${0##*/}" "$VERBOSE" >&2; exit 2; }
[[ -d $DIR && -w $DIR ]] || { printf '%s: DIR=%s: not a writable directory\n' "${0##*/}" "$DIR" >&2; exit 2; }
RANDOM=$SEED

tmp=$(mktemp -d "$DIR/faults.XXXXXX")
tag_base="faults-$$-$SEED"
cleanup() {
	local p
	for p in $(tagged "$tag_base"); do kill -KILL "$p" 2>/dev/null || true; done
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
		kill -KILL -- "-$lpid" 2>/dev/null || true
		for p in $(tagged "$tag"); do kill -KILL "$p" 2>/dev/null || true; done
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
	hung=0
	while kill -0 "$lpid" 2>/dev/null; do
		if (($(date +%s%N) - t0 > HANG * 1000000000)); then
			hung=1
			break
		fi
		# A reaped launcher is gone; an exited one not yet waited for is a zombie.
		[[ $(awk '{print $3}' "/proc/$lpid/stat" 2>/dev/null) == Z ]] && break
		sleep 0.02
	done
	t1=$(date +%s%N)
	if ((hung)); then
		for p in $(tagged "$tag"); do kill -CONT "$p" 2>/dev/null || true; done
		kill -KILL -- "-$lpid" 2>/dev/null || true
		for p in $(tagged "$tag"); do kill -KILL "$p" 2>/dev/null || true; done
	fi
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
	left=$(tagged "$tag" | tr '\n' ' ')
	if [[ -n $left ]]; then
		problems+=("processes left: $left")
		for p in $left; do kill -CONT "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
	fi
	shm_new=$(comm -13 <(printf '%s\n' "$shm_before") <(ls -A /dev/shm | sort) | tr '\n' ' ')
	[[ -z $shm_new ]] || problems+=("left in /dev/shm: $shm_new")
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

printf '\n%-13s %5s %7s\n' fault runs passed
for f in "${faults[@]}"; do printf '%-13s %5d %7d\n' "$f" "${ran[$f]}" "${passed[$f]}"; done
printf '%-13s %5d %7d   (seed %s; %d not run)\n' total $((RUNS - notrun)) $((RUNS - notrun - failed)) "$SEED" "$notrun"
((failed == 0 && notrun == 0))
