package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// foreignLine is the start of the one line a job launched where it cannot
// join says, after the command's name.
const foreignLine = "launched by "

// checkRefused checks that a job under a launch it cannot join ran
// nothing (no file at out), exited 2 (or the launcher's status for it, at
// least not 0), and said so in exactly one line of its own naming the
// launcher.
func checkRefused(t *testing.T, r testenv.Result, launcher, out string) {
	t.Helper()
	if r.Code == 0 || r.TimedOut {
		t.Fatalf("exit %d (timed out %v), want a refusal\nstdout:\n%s\nstderr:\n%s", r.Code, r.TimedOut, r.Stdout, r.Stderr)
	}
	var ours []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(l, "hpcbench: ") {
			ours = append(ours, l)
		}
	}
	if len(ours) != 1 || !strings.Contains(ours[0], foreignLine+launcher) {
		t.Errorf("hpcbench's lines on stderr: %q, want one naming %q\nstderr:\n%s", ours, launcher, r.Stderr)
	}
	if strings.Contains(r.Stdout, "Summary") || strings.Contains(r.Stdout, "tasks") {
		t.Errorf("a report on stdout:\n%s", r.Stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created: the refused job did work", out)
	}
}

// TestForeignLaunchEnv: a rank whose environment shows a launch of several
// processes without a PMI-1 server (the variables Open MPI's mpirun, srun
// --mpi=pmix and --mpi=none, and Flux set) exits 2 with one line, for every
// benchmark, before any work; with the launch's size 1 it is a singleton.
func TestForeignLaunchEnv(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ior.dat")
	ini := filepath.Join(dir, "io500.ini")
	if err := os.WriteFile(ini, []byte("[global]\ndatadir = "+out+"/data\nresultdir = "+out+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		env      []string
		launcher string
		args     []string
	}{
		{"srun none io500", []string{"SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=2"}, "Slurm's srun without an MPI plugin",
			[]string{"io500", ini}},
		{"open mpi ior", []string{"PMIX_RANK=0", "PMIX_NAMESPACE=42", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0"}, "Open MPI's mpirun (PMIx)",
			[]string{"ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-o", out}},
		{"srun pmix mdtest", []string{"PMIX_RANK=0", "SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=4"}, "Slurm's srun --mpi=pmix",
			[]string{"mdtest", "-n", "10", "-d", out}},
		{"srun none coll", []string{"SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=2"}, "Slurm's srun without an MPI plugin",
			[]string{"coll", "-msglog", "0:2", "Barrier", "--output", out}},
		{"flux wireup", []string{"FLUX_JOB_ID=f", "FLUX_JOB_SIZE=2", "FLUX_TASK_RANK=0"}, "Flux",
			[]string{"wireup", "--output", out}},
		{"pmix fabric server", []string{"PMIX_NAMESPACE=ns"}, "a PMIx launcher",
			[]string{"fabric", "pingpong", "-p", "tcp", "-S", "8", "-I", "10", "--accept-timeout", "5s", "--output", out}},
		{"open mpi allpairs", []string{"OMPI_COMM_WORLD_SIZE=3", "OMPI_COMM_WORLD_RANK=0"}, "Open MPI's mpirun",
			[]string{"fabric", "allpairs", "--output", out}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := append(append([]string{}, noPMIEnv...), c.env...)
			start := time.Now()
			r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench, c.args...)
			if r.Code != 2 {
				t.Errorf("exit %d, want 2", r.Code)
			}
			checkRefused(t, r, c.launcher, out)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("rank 0 took %v to refuse", d)
			}
		})
	}
	// One process of such a launch is a singleton, and runs.
	env := append(append([]string{}, noPMIEnv...), "PMIX_RANK=0", "OMPI_COMM_WORLD_SIZE=1", "OMPI_COMM_WORLD_RANK=0")
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench, "ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-o", out)
	if r.Code != 0 || !strings.Contains(r.Stdout, "tasks               : 1") {
		t.Errorf("mpirun -n 1: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestForeignLaunchOpenMPI runs IOR under Open MPI's mpirun, which speaks
// PMIx only, with a build that has no PMIx (-tags nopmix): the job ends
// non-zero with one line from rank 0 naming the build, and nothing
// written, where it used to run two singletons that both said exit 0.
func TestForeignLaunchOpenMPI(t *testing.T) {
	mpirun := testenv.RequireTool(t, "mpirun.openmpi")
	static := testenv.BuildTagged(t, "nopmix")
	dir := t.TempDir()
	out := filepath.Join(dir, "ior.dat")
	args := []string{"--allow-run-as-root", "--oversubscribe", "-n", "2", static, "ior", "-a", "POSIX", "-b", "4m", "-t", "1m", "-w", "-r", "-o", out}
	r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, mpirun, args...)
	checkRefused(t, r, "Open MPI's mpirun (PMIx)", out)
	if !strings.Contains(r.Stderr, "-tags nopmix") {
		t.Errorf("the refusal does not name the build's lack of PMIx:\n%s", r.Stderr)
	}
}

// TestForeignLaunchSlurm runs IOR under srun without an MPI plugin, and
// with --mpi=pmix a build that has no PMIx (-tags nopmix), on one node of
// the Slurm scripts/test.sh starts and, with pmix, across its two nodes.
func TestForeignLaunchSlurm(t *testing.T) {
	srun := testenv.RequireSlurm(t)
	dir := t.TempDir()
	static := testenv.BuildTagged(t, "nopmix") // for the pmix rows
	for _, c := range []struct{ nodes, mpi, launcher string }{
		{"1", "none", "Slurm's srun without an MPI plugin"},
		{"1", "pmix", "Slurm's srun --mpi=pmix"},
		{"2", "pmix", "Slurm's srun --mpi=pmix"},
	} {
		t.Run(c.mpi+" N"+c.nodes, func(t *testing.T) {
			bin := hpcbench
			if c.mpi == "pmix" {
				bin = static
			}
			out := filepath.Join(dir, "ior-"+c.mpi+"-"+c.nodes)
			args := []string{"-N" + c.nodes, "-n", "2", "--mpi=" + c.mpi, "--kill-on-bad-exit=1", bin, "ior", "-a", "POSIX", "-b", "4m", "-t", "1m", "-w", "-o", out}
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, srun, args...)
			checkRefused(t, r, c.launcher, out)
		})
	}
}
