package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// srunHpcbench runs hpcbench with args under srun with the placement
// options place (-N1 -n 2, say), --mpi=pmi2 and --kill-on-bad-exit, in
// dir. With wrap, each rank runs through sh -c wrap first, which ends in
// exec "$0" "$@".
func srunHpcbench(t *testing.T, srun, dir string, place []string, wrap string, args ...string) testenv.Result {
	t.Helper()
	return srunMPI(t, srun, dir, "pmi2", place, wrap, args...)
}

// srunMPI is srunHpcbench with Slurm's MPI plugin mpi (pmi2, pmix).
func srunMPI(t *testing.T, srun, dir, mpi string, place []string, wrap string, args ...string) testenv.Result {
	t.Helper()
	sargs := append(append([]string{}, place...), "--mpi="+mpi, "--kill-on-bad-exit=1")
	if wrap != "" {
		sargs = append(sargs, "sh", "-c", wrap)
	}
	sargs = append(append(sargs, hpcbench), args...)
	return testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, srun, sargs...)
}

// mustExit0 fails the test unless r is an exit 0.
func mustExit0(t *testing.T, r testenv.Result) {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// wantIn reports each of wants that out lacks.
func wantIn(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
}

// allpairsJSON parses a fabric allpairs run's JSON, failing the test
// unless it exited 0 with one.
func allpairsJSON(t *testing.T, r testenv.Result) *report.Result {
	t.Helper()
	mustExit0(t, r)
	res, err := report.ReadJSON(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.Stdout)
	}
	if res.Run.Benchmark != report.BenchmarkFabricAllpairs {
		t.Fatalf("benchmark %q, want %q\n%s", res.Run.Benchmark, report.BenchmarkFabricAllpairs, r.Stdout)
	}
	return res
}

// TestAcrossNodesSlurm runs the benchmarks across the two nodes, n1 and n2,
// of the Slurm scripts/test.sh starts (scripts/slurm.sh): 4 ranks, 2 a node,
// under srun -N2 -n4 --ntasks-per-node=2 --mpi=pmi2 and --mpi=pmix, and
// fabric pingpong with one rank a node under -N2 -n2.
//
// What this fixture proves, and what it does not. Its two nodes are two
// slurmd on this one machine: a step across them has a slurmstepd on each,
// each serving PMI-1 (Slurm's pmi2 plugin) to its own node's ranks, so the
// business cards a rank reads of the other node's ranks came through
// Slurm's KVS exchange between the nodes, as on a cluster, and the job's
// start, output, exit and abort go through two step daemons. But the nodes
// share the host name, boot id, file system and network: hpcbench sees
// one host (the run record's Hosts is 1, the machine's name; shm between
// every pair of ranks; IOR's "nodes : 1", "clients per node : 4"), and
// allpairs over hosts finds no pair. Nothing here crosses a network
// between hosts: tcp between hosts, HPCBENCH_IFACE and the loopback refusal
// are TestAcrossHostsHydra's, on network-namespace hosts. With
// HPCBENCH_HOSTNAME=$SLURMD_NODENAME each rank reports its Slurm node as
// its host, which shows that srun put ranks 0-1 on n1 and 2-3 on n2 and
// that what hpcbench derives from the hosts (Run.Hosts, IOR's nodes and
// clients per node, allpairs' labels) follows; the transports still see
// one host.
func TestAcrossNodesSlurm(t *testing.T) {
	srun := testenv.RequireSlurm(t)
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	four := []string{"-N2", "-n", "4", "--ntasks-per-node=2"}
	const named = `HPCBENCH_HOSTNAME=$SLURMD_NODENAME; export HPCBENCH_HOSTNAME; exec "$0" "$@"`

	// The fixture: ranks 0-1 on node n1 (SLURM_NODEID 0), 2-3 on n2, one
	// host name.
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, srun,
		append(four, "--mpi=pmi2", "sh", "-c", `echo "$SLURM_PROCID $SLURMD_NODENAME $SLURM_NODEID $(hostname)"`)...)
	if r.Code != 0 {
		t.Fatalf("srun -N2: exit %d (the test needs a Slurm of two nodes: scripts/slurm.sh start DIR)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	slices.Sort(lines)
	if want := []string{"0 n1 0 " + host, "1 n1 0 " + host, "2 n2 1 " + host, "3 n2 1 " + host}; !slices.Equal(lines, want) {
		t.Fatalf("rank, node, node id, host name: %q, want %q", lines, want)
	}

	// Each rank reports the one host name.
	t.Run("wireup", func(t *testing.T) {
		res := wireupResult(t, srunHpcbench(t, srun, dir, four, "", "wireup", "--format", "json"), 4, 4)
		if res.Run.Hosts != 1 || !slices.Equal(res.Run.Hostnames, []string{host}) {
			t.Errorf("hosts %d %q, want 1 [%s]", res.Run.Hosts, res.Run.Hostnames, host)
		}
	})
	t.Run("coll", func(t *testing.T) {
		archive := filepath.Join(dir, "coll.json")
		r := srunHpcbench(t, srun, dir, four, "", "coll", "-check", "-iter", "20", "-msglog", "0:4", "Allreduce", "Bcast", "Alltoall", "--archive", archive)
		mustExit0(t, r)
		wantIn(t, r.Stdout, "# #processes = 4", "ALL BENCHMARKS SUCCESSFUL")
		res := readRunArchive(t, archive)
		if res.Run.Ranks != 4 || res.Run.Hosts != 1 || res.Run.Env["transport"] != "shm" {
			t.Errorf("coll's run record: %d ranks on %d hosts over %q; want 4 on 1 over shm", res.Run.Ranks, res.Run.Hosts, res.Run.Env["transport"])
		}
	})
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"ior shared", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "ior-shared")},
			[]string{"tasks               : 4", "nodes               : 1", "clients per node    : 4"}},
		{"ior -F", []string{"ior", "-a", "POSIX", "-F", "-b", "1m", "-t", "64k", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "ior-fpp")},
			[]string{"tasks               : 4", "nodes               : 1", "access              : file-per-process"}},
		{"mdtest", []string{"mdtest", "-n", "20", "-F", "-d", filepath.Join(dir, "md")},
			[]string{"launched with 4 total task(s) on 1 node(s)", "4 tasks, 80 files", "File creation", "File removal"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := srunHpcbench(t, srun, dir, four, "", c.args...)
			mustExit0(t, r)
			wantIn(t, r.Stdout, c.want...)
		})
	}
	t.Run("allpairs ranks", func(t *testing.T) {
		r := srunHpcbench(t, srun, dir, four, "", "fabric", "allpairs", "--ranks", "-I", "50", "--bw-iters", "8", "--format", "json")
		res := allpairsJSON(t, r)
		if res.Run.Ranks != 4 || res.Run.Hosts != 1 || len(res.Tables) == 0 || len(res.Tables[0].Rows) != 6 {
			t.Errorf("%d ranks on %d hosts, want 4 on 1 and 6 pairs\n%s", res.Run.Ranks, res.Run.Hosts, r.Stdout)
		}
	})
	t.Run("allpairs hosts", func(t *testing.T) {
		// Over hosts, the job's one host has no pair: its ranks are
		// measured instead, said in one line.
		r := srunHpcbench(t, srun, dir, four, "", "fabric", "allpairs", "-I", "50", "--bw-iters", "8")
		if r.Code != 0 {
			t.Fatalf("exit %d, want the ranks measured\n%s", r.Code, r.Stderr)
		}
		wantIn(t, r.Stderr, "the job has one host ("+host+"): measuring every pair of its 4 ranks")
	})

	// Each rank reports its Slurm node as its host.
	t.Run("wireup named", func(t *testing.T) {
		res := wireupResult(t, srunHpcbench(t, srun, dir, four, named, "wireup", "--format", "json"), 4, 4)
		if res.Run.Hosts != 2 || !slices.Equal(res.Run.Hostnames, []string{"n1", "n2"}) {
			t.Errorf("hosts %d %q, want 2 [n1 n2]", res.Run.Hosts, res.Run.Hostnames)
		}
	})
	t.Run("ior named", func(t *testing.T) {
		r := srunHpcbench(t, srun, dir, four, named, "ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-C", "-o", filepath.Join(dir, "ior-named"))
		mustExit0(t, r)
		wantIn(t, r.Stdout, "tasks               : 4", "nodes               : 2", "clients per node    : 2")
	})
	t.Run("allpairs ranks named", func(t *testing.T) {
		r := srunHpcbench(t, srun, dir, four, named, "fabric", "allpairs", "--ranks", "-I", "50", "--bw-iters", "8")
		mustExit0(t, r)
		wantIn(t, r.Stdout, "Hosts               : 2 (n1, n2)", "rank 0 (n1)", "rank 1 (n1)", "rank 2 (n2)", "rank 3 (n2)", "transport           : shm")
	})

	// Under --mpi=pmix the ranks join through PMIx (OpenPMIx loaded at
	// run time), each node's slurmstepd their PMIx server: the same jobs,
	// and the run record says pmix.
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"pmix wireup", []string{"wireup"}, []string{"Ranks               : 4", "pmi                 : pmix"}},
		{"pmix coll", []string{"coll", "-check", "-iter", "20", "-msglog", "0:4", "Allreduce", "Bcast", "Alltoall"}, []string{"# #processes = 4", "ALL BENCHMARKS SUCCESSFUL"}},
		{"pmix ior", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "ior-pmix")}, []string{"tasks               : 4"}},
		{"pmix mdtest", []string{"mdtest", "-n", "20", "-F", "-d", filepath.Join(dir, "md-pmix")}, []string{"4 tasks, 80 files"}},
		{"pmix allpairs ranks named", []string{"fabric", "allpairs", "--ranks", "-I", "50", "--bw-iters", "8"}, []string{"rank 0 (n1)", "rank 3 (n2)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wrap := ""
			if strings.HasSuffix(c.name, "named") {
				wrap = named
			}
			r := srunMPI(t, srun, dir, "pmix", four, wrap, c.args...)
			mustExit0(t, r)
			wantIn(t, r.Stdout, c.want...)
		})
	}

	// One rank a node.
	t.Run("pingpong tcp -N2 -n2", func(t *testing.T) {
		r := srunHpcbench(t, srun, dir, []string{"-N2", "-n", "2"}, "", "fabric", "pingpong", "-p", "tcp", "-S", "64,64k", "-I", "300", "--format", "json")
		fabricJSON(t, r, "pingpong", 2)
	})
}
