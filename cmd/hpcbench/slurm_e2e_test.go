package main

import (
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
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
			func(t *testing.T, r testenv.Result) { allpairsJSON(t, r) }},
		{"coll", []string{"coll", "-iter", "20", "-msglog", "0:4", "Allreduce", "Barrier"},
			func(t *testing.T, r testenv.Result) {
				wantIn(t, r.Stdout, "# #processes = 2", "# Benchmarking Allreduce", "# Benchmarking Barrier")
			}},
		{"ior", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-C", "-F", "-o", filepath.Join(dir, "ior")},
			func(t *testing.T, r testenv.Result) {
				wantIn(t, r.Stdout, "tasks               : 2", "Summary of all tests:", "\nwrite  ", "\nread   ")
			}},
		{"mdtest", []string{"mdtest", "-n", "50", "-F", "-d", filepath.Join(dir, "md")},
			func(t *testing.T, r testenv.Result) {
				wantIn(t, r.Stdout, "2 tasks, 100 files", "File creation", "File removal")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := srunHpcbench(t, srun, dir, []string{"-N1", "-n", "2"}, "", tc.args...)
			mustExit0(t, r)
			tc.check(t, r)
		})
	}
}
