package launch

import (
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/launch/hostlist"
	"github.com/hpcbench/hpcbench/internal/progress"
)

// scrubbedEnv returns env without the variables a launcher above us may have
// set for its own ranks (PMI_*, HYDI_*, MPI_LOCAL*, EnvLauncherKVS and
// progress.EnvLauncher), so that a rank never talks to the wrong PMI
// server nor leaves its progress to a launcher that does not show it, and without
// EnvPhaseTimeout when the job sets its own (phaseTimeout).
func scrubbedEnv(env []string, phaseTimeout bool) []string {
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		if strings.HasPrefix(kv, "PMI_") || strings.HasPrefix(kv, "HYDI_") || strings.HasPrefix(kv, "MPI_LOCAL") ||
			strings.HasPrefix(kv, EnvLauncherKVS+"=") || strings.HasPrefix(kv, progress.EnvLauncher+"=") || phaseTimeout && strings.HasPrefix(kv, EnvPhaseTimeout+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// rankVars returns the PMI variables of one rank of a job of n ranks, the
// local-th of the localN on its host, added to the job's scrubbed
// environment by the spawner.
func rankVars(rank, n, local, localN int, pmiPort string) []string {
	r := strconv.Itoa(rank)
	var env []string
	if pmiPort != "" {
		// As Hydra's -pmi-port: size and rank come over the wire (initack).
		env = []string{"PMI_PORT=" + pmiPort, "PMI_ID=" + r}
	} else {
		env = []string{"PMI_FD=3", "PMI_RANK=" + r, "PMI_SIZE=" + strconv.Itoa(n)}
	}
	return append(env, "MPI_LOCALNRANKS="+strconv.Itoa(localN), "MPI_LOCALRANKID="+strconv.Itoa(local))
}

// processMapping is PMI_process_mapping for n ranks on one node, in the
// block form MPICH parses: one node holding n consecutive ranks.
func processMapping(n int) string {
	return "(vector,(0,1," + strconv.Itoa(n) + "))"
}

// processMappingOf is PMI_process_mapping for the ranks placed on hosts,
// as hostlist.Layout.ProcessMapping writes it for MPICH.
func processMappingOf(hosts []HostRanks) string {
	l := hostlist.Layout{Hosts: make([]hostlist.Host, len(hosts))}
	for i, h := range hosts {
		l.Hosts[i] = hostlist.Host{Name: h.Name, Ranks: h.Ranks}
	}
	return l.ProcessMapping()
}

// crowdVars returns GOMAXPROCS=1 for the ranks of a job of n ranks on a
// crowded host (fabric.Hint.Crowded: more than four ranks per online CPU)
// when env, the job's environment, does not set GOMAXPROCS; nil otherwise.
// A Go rank there is almost never running while others wait for it, and
// its runtime's second P only brings hand-offs between threads (an idle
// P's thread woken for every goroutine made runnable, then put back to
// sleep) onto the CPUs the other ranks need. It must be in the
// environment: a rank that lowers GOMAXPROCS itself once running has paid
// for the start-up with two Ps and pays a stop-the-world on top
// (`launch -n 1024 -- wireup --pattern ring`, 8 interleaved pairs each:
// 1.02x the wall time that way, 0.91x from the environment). Programs
// that are not Go ignore the variable.
func crowdVars(env []string, n, cpus int) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return nil
		}
	}
	if !(fabric.Hint{LocalRanks: n, HostCPUs: cpus}).Crowded() {
		return nil
	}
	return []string{"GOMAXPROCS=1"}
}
