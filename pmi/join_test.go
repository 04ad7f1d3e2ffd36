package pmi

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/pmi/pmix"
)

// uri is a PMIx server's address as Open MPI's mpirun sets it.
const uri = "3126067200.0;tcp4://127.0.0.1:40000"

func TestKindAndEnvRank(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		kind string
		rank int
		ok   bool
	}{
		{"hydra fd", map[string]string{"PMI_FD": "3", "PMI_RANK": "2"}, KindFD, 2, true},
		{"port", map[string]string{"PMI_PORT": "h:1", "PMI_RANK": "0"}, KindPort, 0, true},
		{"pmi wins over pmix", map[string]string{"PMI_FD": "3", "PMI_RANK": "1", "PMIX_NAMESPACE": "n", "PMIX_RANK": "5"}, KindFD, 1, true},
		{"open mpi", map[string]string{"PMIX_NAMESPACE": "42", "PMIX_RANK": "3", "PMIX_SERVER_URI41": uri}, KindPMIx, 3, true},
		{"pmix rank only", map[string]string{"PMIX_RANK": "1"}, KindSingleton, 1, true},
		{"empty is unset", map[string]string{"PMI_FD": "", "PMIX_NAMESPACE": "", "PMIX_RANK": ""}, KindSingleton, 0, false},
		{"slurm without plugin", map[string]string{"SLURM_PROCID": "2", "SLURM_NTASKS": "4"}, KindSingleton, 2, true},
		{"bad rank", map[string]string{"PMI_RANK": "x"}, KindSingleton, 0, false},
		{"alone", map[string]string{}, KindSingleton, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Kind(envOf(c.env)); got != c.kind {
				t.Errorf("Kind = %q, want %q", got, c.kind)
			}
			if r, ok := EnvRank(envOf(c.env)); ok != c.ok || (ok && r != c.rank) {
				t.Errorf("EnvRank = %d, %v; want %d, %v", r, ok, c.rank, c.ok)
			}
		})
	}
}

// TestCheckLaunch: a PMIx launch is joinable when OpenPMIx loads and the
// environment names a server; otherwise it is refused in one line saying
// why, unless it is a launch of one process.
func TestCheckLaunch(t *testing.T) {
	loads := func() (*pmix.Lib, error) { return &pmix.Lib{}, nil }
	missing := func() (*pmix.Lib, error) {
		return nil, errors.New("pmix: cannot load OpenPMIx (libpmix.so.2, libpmix.so): not found (Debian: apt-get install libpmix2)")
	}
	ompi := map[string]string{"PMIX_NAMESPACE": "42", "PMIX_RANK": "0", "PMIX_SERVER_URI41": uri, "OMPI_COMM_WORLD_SIZE": "2"}
	for _, c := range []struct {
		name string
		env  map[string]string
		open func() (*pmix.Lib, error)
		want string // "" joinable, else in the refusal
	}{
		{"open mpi, library loads", ompi, loads, ""},
		{"open mpi, library missing", ompi, missing, "libpmix2"},
		{"no server uri", map[string]string{"PMIX_NAMESPACE": "42", "PMIX_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}, loads, "no PMIx server"},
		{"one process, library missing", map[string]string{"PMIX_NAMESPACE": "42", "PMIX_RANK": "0", "PMIX_SERVER_URI41": uri, "OMPI_COMM_WORLD_SIZE": "1"}, missing, ""},
		{"srun none", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}, loads, "without an MPI plugin"},
		{"hydra", map[string]string{"PMI_FD": "3"}, missing, ""},
		{"alone", map[string]string{}, missing, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkLaunch(setVars(envOf(c.env)), c.open)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *ForeignLaunchError
			if !errors.As(err, &fe) {
				t.Fatalf("err %v, want a *ForeignLaunchError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.ContainsAny(msg, "\n") {
				t.Errorf("refusal %q, want one line with %q", msg, c.want)
			}
		})
	}
}

// TestJoinPMIxMissingLibrary: Join refuses a PMIx launch of several
// processes whose library does not load, and falls back to a singleton
// for a launch of one.
func TestJoinPMIxMissingLibrary(t *testing.T) {
	missing := func() (*pmix.Lib, error) { return nil, pmix.ErrNotBuilt }
	opts := ClientOptions{openPMIx: missing, Getenv: envOf(map[string]string{
		"PMIX_NAMESPACE": "42", "PMIX_RANK": "1", "PMIX_SERVER_URI41": uri, "OMPI_COMM_WORLD_SIZE": "4"})}
	_, err := Join(context.Background(), opts)
	var fe *ForeignLaunchError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "nopmix") || !strings.Contains(err.Error(), "Open MPI") {
		t.Fatalf("Join: %v; want a refusal naming Open MPI and the build", err)
	}
	opts.Getenv = envOf(map[string]string{"PMIX_NAMESPACE": "42", "PMIX_RANK": "0", "PMIX_SERVER_URI41": uri, "OMPI_COMM_WORLD_SIZE": "1"})
	b, err := Join(context.Background(), opts)
	if err != nil || !b.Singleton() || b.Kind() != KindSingleton {
		t.Fatalf("Join of one process: %v, %v; want a singleton", b, err)
	}
}
