package pmi

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// envOf returns a getenv over vars.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// TestForeignLaunch: every launch a rank may be part of without a PMI-1
// server is recognised, with its rank and size; a launch of one process,
// and none at all, are a singleton's.
func TestForeignLaunch(t *testing.T) {
	for _, c := range []struct {
		name       string
		env        map[string]string
		launcher   string // "" for none
		rank, size int
	}{
		{"alone", map[string]string{}, "", 0, 0},
		{"open mpi pmix", map[string]string{"PMIX_RANK": "1", "PMIX_NAMESPACE": "123", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "1"}, "Open MPI's mpirun (PMIx)", 1, 2},
		{"open mpi pmix alone", map[string]string{"PMIX_RANK": "0", "OMPI_COMM_WORLD_SIZE": "1"}, "", 0, 0},
		{"srun pmix", map[string]string{"PMIX_RANK": "0", "PMIX_SERVER_URI41": "pmix-server.1;tcp4://127.0.0.1:1", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "4", "SLURM_NTASKS": "8"}, "Slurm's srun --mpi=pmix", 0, 4},
		{"srun pmix one task", map[string]string{"PMIX_RANK": "0", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1"}, "", 0, 0},
		{"pmix of unknown size", map[string]string{"PMIX_NAMESPACE": "ns"}, "a PMIx launcher", -1, -1},
		{"pmix server uri only", map[string]string{"PMIX_SERVER_URI2": "x;tcp4://127.0.0.1:1"}, "a PMIx launcher", -1, -1},
		{"flux pmix", map[string]string{"PMIX_RANK": "2", "FLUX_JOB_ID": "f1", "FLUX_JOB_SIZE": "3"}, "Flux (PMIx)", 2, 3},
		{"srun none", map[string]string{"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, "Slurm's srun without an MPI plugin", 1, 2},
		{"srun none, job's tasks", map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "4"}, "Slurm's srun without an MPI plugin", 3, 4},
		{"srun one task", map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1", "SLURM_NTASKS": "4"}, "", 0, 0},
		{"open mpi without pmix", map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "3"}, "Open MPI's mpirun", 3, 4},
		{"open mpi one", map[string]string{"OMPI_COMM_WORLD_SIZE": "1"}, "", 0, 0},
		{"flux", map[string]string{"FLUX_JOB_ID": "f2", "FLUX_JOB_SIZE": "2", "FLUX_TASK_RANK": "0"}, "Flux", 0, 2},
		{"flux alone", map[string]string{"FLUX_JOB_ID": "f3", "FLUX_JOB_SIZE": "1"}, "", 0, 0},
		{"srun pmi2", map[string]string{"PMI_FD": "5", "PMI_RANK": "1", "SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, "", 0, 0},
		{"hydra port under pmix", map[string]string{"PMI_PORT": "h:1", "PMIX_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, "", 0, 0},
		{"empty PMI_FD", map[string]string{"PMI_FD": "", "SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, "Slurm's srun without an MPI plugin", 1, 2},
		{"bad numbers", map[string]string{"SLURM_PROCID": "x", "SLURM_NTASKS": "many"}, "", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, ok := ForeignLaunch(envOf(c.env))
			switch {
			case c.launcher == "" && ok:
				t.Fatalf("saw %+v, want none", l)
			case c.launcher == "":
				return
			case !ok:
				t.Fatalf("saw no launch, want %s", c.launcher)
			}
			if l.Launcher != c.launcher || l.Rank != c.rank || l.Size != c.size || l.Hint == "" || l.Saw == "" {
				t.Errorf("saw %+v, want %s rank %d size %d with what it saw and a hint", l, c.launcher, c.rank, c.size)
			}
			msg := (&ForeignLaunchError{Launch: l}).Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "launched by "+c.launcher) || !strings.Contains(msg, l.Hint) {
				t.Errorf("message %q: want one line naming %s and its hint", msg, c.launcher)
			}
		})
	}
}

// TestConnectRefusesForeignLaunch: Connect never falls back to a
// singleton under a launch of several processes it cannot join.
func TestConnectRefusesForeignLaunch(t *testing.T) {
	env := map[string]string{"PMIX_RANK": "1", "PMIX_NAMESPACE": "7", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "1"}
	c, err := Connect(context.Background(), ClientOptions{Getenv: envOf(env)})
	var fe *ForeignLaunchError
	if !errors.As(err, &fe) || c != nil {
		t.Fatalf("Connect = %v, %v; want a *ForeignLaunchError", c, err)
	}
	// Empty variables are unset, as for PMI_FD: a wrapper clears them so.
	for k := range env {
		env[k] = ""
	}
	c, err = Connect(context.Background(), ClientOptions{Getenv: envOf(env)})
	if err != nil || !c.Singleton() {
		t.Fatalf("Connect with the variables cleared = %v, %v; want a singleton", c, err)
	}
	c.Close()
}
