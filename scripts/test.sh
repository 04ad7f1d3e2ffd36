#!/usr/bin/env bash
# test.sh: the project's test command (README "Quick start", and CI via
# .ci/run). Works from any directory.
#
#   1. installs the Debian packages the tests need when they are missing
#      (one apt-get update, one apt-get install -y; needs root then); when
#      another apt or dpkg holds their locks it says so and waits, up to
#      HPCBENCH_APT_LOCK_WAIT seconds,
#   2. checks gofmt,
#   3. runs go vet ./..., then the verbs build's checks: go vet and go build
#      with -tags verbs, the verbs and fabtest tests with it (against the
#      fake device), and prints the real-device test's skip line,
#   4. runs every fuzz target briefly: targets are discovered with
#      `go test -list '^Fuzz' ./...`, so a new FuzzX in any package is picked
#      up without editing this file, and each runs alone with
#      `go test -run '^$' -fuzz '^FuzzX$' -fuzztime $HPCBENCH_FUZZTIME PKG`,
#   5. runs the fault campaign's short version (scripts/faults.sh, 10 runs
#      under hpcbench launch and, as root, 12 across two namespace hosts
#      under Hydra, Open MPI and hpcbench launch, each meeting every fault),
#   6. starts a two-node Slurm of its own (scripts/slurm.sh, as root: two
#      slurmd on this machine; its state in a temporary directory,
#      SLURM_CONF exported for the tests),
#   7. ends with `go test -race -count=1 ./...`, whose own summary is the
#      last thing printed and whose exit status is this script's (the
#      Slurm daemons it started are stopped after it).
#
# Arguments are passed to that last go test before ./..., for example
# `scripts/test.sh -run TestLaunch -v`.
#
# Environment:
#   HPCBENCH_FUZZTIME        time per fuzz target (default 5s; 0 skips fuzzing)
#   HPCBENCH_TEST_TIMEOUT    go test -timeout for each test binary (default 8m)
#   HPCBENCH_FAULTS          runs of scripts/faults.sh (default 10; 0 skips it)
#   HPCBENCH_FAULTS_SLACK    its SLACK: seconds past the watchdog's deadline
#                            a stopped rank's job may take to end (default 2,
#                            for a machine busy with the build)
#   HPCBENCH_APT_LOCK_WAIT   seconds to wait for another package manager's
#                            locks before installing (default 300)
#   HPCBENCH_REQUIRE_TOOLS   default 1: a test that needs a missing tool such as
#                            mpicc fails instead of skipping (internal/testenv).
#                            Set it to 0 on a machine without MPICH to skip them.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(hb_repo_root)"

# Debian packages the tests use: MPICH and its compiler wrapper for the
# end-to-end tests against real MPI programs, gcc for cgo (-race needs it),
# rdma-core's libibverbs-dev and pkg-config for the verbs build (-tags
# verbs), libfabric-bin for fi_pingpong (scripts/bench-fabric.sh),
# slurm-wlm and munge for the tests under srun --mpi=pmi2 (a two-node Slurm
# of the tests' own, scripts/slurm.sh), openmpi-bin and libpmix-dev for the
# tests under PMIx launchers (Open MPI's mpirun; srun --mpi=pmix, whose
# plugin dlopens the libpmix.so that only libpmix-dev ships). Open
# MPI's package makes itself the system's mpicc and mpiexec alternative:
# the tests and scripts name MPICH's (mpicc.mpich, mpiexec.mpich).
DEB_PACKAGES=(mpich libmpich-dev gcc pkg-config libibverbs-dev libfabric-bin libfabric-dev slurm-wlm munge openmpi-bin libpmix-dev time libucx-dev)

fuzztime=${HPCBENCH_FUZZTIME:-5s}
export HPCBENCH_REQUIRE_TOOLS=${HPCBENCH_REQUIRE_TOOLS:-1}

hb_ensure_debs "${DEB_PACKAGES[@]}"
hb_ensure_go
hb_log "$(go version)"

hb_log "gofmt -l"
mapfile -t gofiles < <(find . \( -name .git -o -name testdata -o -name vendor \) -prune \
	-o -type f -name '*.go' -print | sort)
if ((${#gofiles[@]} > 0)); then
	unformatted=$(gofmt -l "${gofiles[@]}")
	if [[ -n $unformatted ]]; then
		printf 'these files need gofmt -w:\n%s\n' "$unformatted" >&2
		exit 1
	fi
fi

hb_log "go vet ./..."
go vet ./...
# The verbs build: the cgo binding to libibverbs compiles and vets here,
# and its tests run against the fake device; the real-device test skips,
# saying why, on a host without RDMA (this one's line is printed).
hb_log "go vet -tags verbs ./... and go build -tags verbs ./cmd/hpcbench"
go vet -tags verbs ./...
go build -tags verbs -o /dev/null ./cmd/hpcbench
# (without -race: the final go test -race ./... runs the same fake-device
# tests again, which are the same in both builds)
hb_log "go test -tags verbs ./fabric/verbs/..."
go test -count=1 -tags verbs ./fabric/verbs/...
go test -count=1 -tags verbs -run '^TestRealDevices$' -v ./fabric/verbs | grep -E '^\s+\S+_test.go:[0-9]+: |^--- (SKIP|PASS|FAIL)' || true

# fuzz_targets prints "PACKAGE FuzzName" per fuzz target. go test -list
# prints each package's matching names followed by that package's "ok" line.
fuzz_targets() {
	local out
	if ! out=$(go test -list '^Fuzz' ./...); then
		printf '%s\n' "$out" >&2
		hb_die "go test -list '^Fuzz' ./... failed"
	fi
	printf '%s\n' "$out" | awk '
		/^Fuzz[A-Za-z0-9_]*$/ { names[n++] = $0; next }
		/^ok[ \t]/ { for (i = 0; i < n; i++) print $2, names[i] }
		{ n = 0 }'
}

# fuzz_one fuzzes one target. Minimising an input is capped at 100 runs:
# with the default (60 s), the first new interesting input of a target with
# large seeds (FuzzRender's archives) took the whole fuzz time, 8 execs in
# 10 s against 13,000 a second with the cap. A real failure always writes its input under
# testdata/fuzz ("Failing input written to ..."); on a loaded machine the go
# command sometimes ends a clean run with "context deadline exceeded" while
# stopping its workers (no input written). That is retried once and, if it
# happens again, reported as a warning rather than failing the suite.
fuzz_one() {
	local pkg=$1 name=$2 out attempt
	for attempt in 1 2; do
		hb_log "fuzz $pkg $name"
		if out=$(go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 100x "$pkg" </dev/null 2>&1); then
			printf '%s\n' "$out" | tail -n 2
			return 0
		fi
		printf '%s\n' "$out"
		if grep -q 'Failing input written to' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then
			hb_die "fuzz target $name in $pkg failed"
		fi
		hb_log "fuzz $name stopped with 'context deadline exceeded' and no failing input (attempt $attempt)"
	done
	hb_log "warning: fuzz $name in $pkg twice ended with the go command's worker-shutdown timeout; no failing input was found"
}

if [[ $fuzztime == 0 || $fuzztime == 0s ]]; then
	hb_log "fuzzing skipped (HPCBENCH_FUZZTIME=$fuzztime)"
else
	hb_log "discovering fuzz targets"
	found=$(fuzz_targets)
	targets=()
	if [[ -n $found ]]; then
		mapfile -t targets <<<"$found"
	fi
	hb_log "fuzzing ${#targets[@]} targets for $fuzztime each"
	for t in "${targets[@]}"; do
		read -r pkg name <<<"$t"
		fuzz_one "$pkg" "$name"
	done
fi

# The fault campaign's short version (scripts/faults.sh): 10 jobs, each hit
# by one fault, checked for exit, blame, time and leftovers. HPCBENCH_FAULTS=0
# skips it.
if [[ ${HPCBENCH_FAULTS:-10} == 0 ]]; then
	hb_log "fault campaign skipped (HPCBENCH_FAULTS=0)"
else
	hb_log "scripts/faults.sh: ${HPCBENCH_FAULTS:-10} runs, and 12 across hosts (every launcher meets every fault)"
	RUNS=${HPCBENCH_FAULTS:-10} HOST_RUNS=12 SLACK=${HPCBENCH_FAULTS_SLACK:-2} scripts/faults.sh
fi

# Namespace hosts left by an earlier run killed before its cleanup
# (scripts/nshosts.sh sweep: only those whose creating process is gone).
if [[ $(id -u) == 0 ]]; then
	scripts/nshosts.sh sweep
fi

# A Slurm for the tests under srun (TestUnderSlurm, TestAcrossNodesSlurm):
# the daemons run as root. Without root those tests say why they cannot run
# (and fail under HPCBENCH_REQUIRE_TOOLS=1).
slurm_dir=""
if [[ $(id -u) == 0 ]]; then
	slurm_dir=$(mktemp -d /tmp/hpcbench-slurm.XXXXXX)
	trap 'scripts/slurm.sh stop "$slurm_dir"; rm -rf "$slurm_dir"' EXIT
	hb_log "scripts/slurm.sh start $slurm_dir"
	slurm_conf=$(scripts/slurm.sh start "$slurm_dir")
	export SLURM_CONF=${slurm_conf#SLURM_CONF=}
else
	hb_log "not root: no Slurm of our own is started (the tests under srun need one)"
fi

hb_log "go test -race ./..."
go test -race -count=1 -timeout "${HPCBENCH_TEST_TIMEOUT:-8m}" "$@" ./...
