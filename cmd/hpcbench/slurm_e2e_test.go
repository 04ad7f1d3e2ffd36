package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// TestUnderSlurm runs the benchmarks under Slurm's srun --mpi=pmi2, as a
// site's batch system starts them (its pmi2 plugin answers PMI-1 on
// PMI_FD, with rc first and appnum -1), two ranks on one node (-N1) of the
// Slurm that scripts/test.sh starts (scripts/slurm.sh). TestAcrossNodesSlurm
// runs them across its two nodes.
func TestUnderSlurm(t *testing.T) {
	srun := testenv.RequireSlurm(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, r testenv.Result)
	}{
		{"fabric pingpong shm", []string{"fabric", "pingpong", "-p", "shm", "-S", "64,64k", "-I", "300", "-c", "--format", "json"},
			func(t *testing.T, r testenv.Result) { fabricJSON(t, r, "pingpong", 2) }},
		{"fabric bw tcp", []string{"fabric", "bw", "-p", "tcp", "-S", "1m", "-I", "40", "--format", "json"},
			func(t *testing.T, r testenv.Result) { fabricJSON(t, r, "bw", 1) }},
		{"fabric allpairs ranks", []string{"fabric", "allpairs", "--ranks", "-I", "50", "--bw-iters", "8", "--format", "json"},
			func(t *testing.T, r testenv.Result) {
				res, err := report.ReadJSON(strings.NewReader(r.Stdout))
				if err != nil || res.Run.Benchmark != report.BenchmarkFabricAllpairs {
					t.Fatalf("JSON %v, benchmark %q\n%s", err, res.Run.Benchmark, r.Stdout)
				}
			}},
		{"coll", []string{"coll", "-iter", "20", "-msglog", "0:4", "Allreduce", "Barrier"},
			func(t *testing.T, r testenv.Result) {
				for _, want := range []string{"# #processes = 2", "# Benchmarking Allreduce", "# Benchmarking Barrier"} {
					if !strings.Contains(r.Stdout, want) {
						t.Errorf("no %q in\n%s", want, r.Stdout)
					}
				}
			}},
		{"ior", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-C", "-F", "-o", filepath.Join(dir, "ior")},
			func(t *testing.T, r testenv.Result) {
				for _, want := range []string{"tasks               : 2", "Summary of all tests:", "\nwrite  ", "\nread   "} {
					if !strings.Contains(r.Stdout, want) {
						t.Errorf("no %q in\n%s", want, r.Stdout)
					}
				}
			}},
		{"mdtest", []string{"mdtest", "-n", "50", "-F", "-d", filepath.Join(dir, "md")},
			func(t *testing.T, r testenv.Result) {
				for _, want := range []string{"2 tasks, 100 files", "File creation", "File removal"} {
					if !strings.Contains(r.Stdout, want) {
						t.Errorf("no %q in\n%s", want, r.Stdout)
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-N1", "-n", "2", "--mpi=pmi2", "--kill-on-bad-exit=1", hpcbench}, tc.args...)
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, srun, args...)
			if r.Code != 0 {
				t.Fatalf("srun %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
			}
			tc.check(t, r)
		})
	}
}
