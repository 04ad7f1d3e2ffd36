package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// openMPI is the start of an mpirun.openmpi command line on this machine:
// run as root, and more ranks than its 2 cores.
var openMPI = []string{"--allow-run-as-root", "--oversubscribe"}

// TestUnderOpenMPI runs the benchmarks under Open MPI's mpirun, whose
// ranks join through PMIx (OpenPMIx loaded at run time): each is one job
// of 3 ranks, not 3 singletons, and its run record says pmix.
func TestUnderOpenMPI(t *testing.T) {
	mpirun := testenv.RequireTool(t, "mpirun.openmpi")
	dir := t.TempDir()
	archive := filepath.Join(dir, "coll.json")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"wireup", []string{"wireup"}, []string{"Ranks               : 3", "pmi                 : pmix", "total"}},
		{"coll", []string{"coll", "-check", "-iter", "20", "-msglog", "0:10", "Allreduce", "Bcast", "Alltoall", "--archive", archive},
			[]string{"# #processes = 3", "ALL BENCHMARKS SUCCESSFUL"}},
		{"ior", []string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-r", "-W", "-R", "-C", "-o", filepath.Join(dir, "ior")},
			[]string{"tasks               : 3", "Summary of all tests:"}},
		{"ior -F", []string{"ior", "-a", "POSIX", "-F", "-b", "1m", "-t", "64k", "-w", "-r", "-o", filepath.Join(dir, "iorf")},
			[]string{"tasks               : 3"}},
		{"mdtest", []string{"mdtest", "-n", "20", "-F", "-d", filepath.Join(dir, "md")}, []string{"3 tasks, 60 files"}},
		{"fabric pingpong", []string{"fabric", "pingpong", "-p", "shm", "-S", "64", "-I", "100"}, []string{"usec/xfer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append(append([]string{}, openMPI...), "-n", "3", hpcbench), c.args...)
			if c.args[0] == "fabric" {
				args[len(openMPI)+1] = "2" // a pair
			}
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, mpirun, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("no %q in\n%s", w, r.Stdout)
				}
			}
		})
	}
	if rec := readRunArchive(t, archive).Run; rec.Ranks != 3 || rec.Env["pmi"] != "pmix" {
		t.Errorf("coll's run record: %d ranks, pmi %q; want 3 ranks, pmix", rec.Ranks, rec.Env["pmi"])
	}
}

// TestOpenMPIExitStatus: a job whose ranks fail under mpirun ends with
// their status, 1, from mpirun. (A stopped rank's job, which aborts
// through PMIx, is TestStalledRankEndsJob's.)
func TestOpenMPIExitStatus(t *testing.T) {
	mpirun := testenv.RequireTool(t, "mpirun.openmpi")
	dir := t.TempDir()
	// ior -r of a file no rank wrote: every rank fails its open, exit 1.
	args := append(append([]string{}, openMPI...), "-n", "2", hpcbench, "ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-r", "-o", filepath.Join(dir, "none"))
	r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, mpirun, args...)
	if r.Code != 1 {
		t.Errorf("ior -r of a missing file: exit %d, want 1\nstderr:\n%s", r.Code, r.Stderr)
	}
}
