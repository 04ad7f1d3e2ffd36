package pmi

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/pmi/pmix"
)

// Key names a value in the job's key space: the rank that put it and its
// name. PMI-1's key space is flat, and its Get ignores the rank; PMIx
// keeps each process's values apart and gets by both.
type Key struct {
	Rank int
	Name string
}

// Bootstrap is a rank's connection to whatever launched its job, as the
// benchmarks use it: publish a business card, fence, read the peers'
// cards, abort, finalize. *Client (PMI-1 and the singleton) and the PMIx
// client Join returns implement it.
type Bootstrap interface {
	// Rank and Size place this process in the job.
	Rank() int
	Size() int
	// KVS names the job's key space (PMI-1's KVS, PMIx's namespace).
	KVS() string
	// Kind says how the process found its launcher: "fd", "port",
	// "pmix" or "singleton" (see Kind).
	Kind() string
	// Singleton reports a process launched alone.
	Singleton() bool
	// OwnLauncher reports whether hpcbench launch serves the job, and
	// so takes pipelined gets and phase reports.
	OwnLauncher() bool
	// PutBytes publishes b under key; peers may read it after Barrier.
	PutBytes(ctx context.Context, key string, b []byte) error
	// Barrier waits for every rank and makes earlier puts visible.
	Barrier(ctx context.Context) error
	// GetBytesFrom reads each key's value, in order, pipelined where the
	// launcher takes it.
	GetBytesFrom(ctx context.Context, keys []Key, pipelined bool) ([][]byte, error)
	// Abort asks the launcher to end the job with exit status code.
	Abort(code int, msg string) error
	// SendPhase reports a phase to hpcbench's own launcher (OwnLauncher
	// only; a no-op elsewhere).
	SendPhase(name string, iter int) error
	// SendProgress is SendPhase with the amount done out of the total.
	SendProgress(name string, iter int, done, total int64) error
	// Finalize tells the launcher this rank is done; Close drops the
	// connection without it.
	Finalize(ctx context.Context) error
	Close() error
}

// Launch kinds, as Kind and Bootstrap.Kind name them and the run record
// keeps them ("pmi").
const (
	KindFD        = "fd"        // PMI-1 on an inherited socket (PMI_FD)
	KindPort      = "port"      // PMI-1 over TCP (PMI_PORT)
	KindPMIx      = "pmix"      // PMIx through OpenPMIx
	KindSingleton = "singleton" // launched alone
)

// Kind names the launch getenv (os.LookupEnv when nil) shows: PMI_FD, then
// PMI_PORT, then the variables of a PMIx launch (PMIX_NAMESPACE,
// PMIX_RANK), else a singleton. An empty variable counts as unset.
func Kind(getenv func(string) (string, bool)) string {
	get := setVars(getenv)
	switch {
	case has(get, "PMI_FD"):
		return KindFD
	case has(get, "PMI_PORT"):
		return KindPort
	case has(get, "PMIX_NAMESPACE") && has(get, "PMIX_RANK"):
		return KindPMIx
	}
	return KindSingleton
}

func has(get func(string) (string, bool), k string) bool { _, ok := get(k); return ok }

// setVars is getenv (os.LookupEnv when nil) with empty variables unset.
func setVars(getenv func(string) (string, bool)) func(string) (string, bool) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	return func(k string) (string, bool) {
		v, ok := getenv(k)
		return v, ok && v != ""
	}
}

// EnvRank returns this process's rank as its environment gives it before
// any PMI call: PMI_RANK (hpcbench launch, Hydra, Slurm's --mpi=pmi2),
// PMIX_RANK, or the rank of a launch ForeignLaunch recognizes; false when
// none says (a singleton's, or an unparsable value).
func EnvRank(getenv func(string) (string, bool)) (int, bool) {
	get := setVars(getenv)
	for _, k := range []string{"PMI_RANK", "PMIX_RANK"} {
		if v, ok := get(k); ok {
			r, err := strconv.Atoi(v)
			return r, err == nil && r >= 0
		}
	}
	if l, ok := ForeignLaunch(get); ok && l.Rank >= 0 {
		return l.Rank, true
	}
	return 0, false
}

// Join connects this process to its launcher: PMI-1 when PMI_FD or
// PMI_PORT is set (Connect), PMIx through OpenPMIx when the environment
// shows a PMIx launch (PMIX_NAMESPACE and PMIX_RANK), else a singleton,
// unless the environment shows a launch of several processes this one
// cannot join, which Join refuses with a *ForeignLaunchError: a PMIx
// launch whose library does not load, Slurm without an MPI plugin, Open
// MPI's or Flux's runtime without PMIx. ctx bounds the PMI-1 handshake;
// PMIx_Init takes no deadline (it reaches a server on this host).
func Join(ctx context.Context, opts ClientOptions) (Bootstrap, error) {
	get := setVars(opts.Getenv)
	if Kind(get) != KindPMIx {
		return Connect(ctx, opts)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pmi: join: %w", err)
	}
	open := opts.openPMIx
	if open == nil {
		open = pmix.Open
	}
	lib, err := openFor(get, open)
	if err != nil {
		if l, ok := ForeignLaunch(get); ok {
			l.Why = err.Error()
			return nil, &ForeignLaunchError{Launch: l}
		}
		return Connect(ctx, opts) // a PMIx launch of one process: a singleton will do
	}
	return joinPMIx(lib, get)
}

// CheckLaunch refuses, before any work, a launch this process could not
// join (see Join): a PMI-1 server or a singleton is joinable; a PMIx
// launch is when OpenPMIx loads; anything ForeignLaunch reports otherwise
// is not. It returns nil or a *ForeignLaunchError.
func CheckLaunch(getenv func(string) (string, bool)) error {
	return checkLaunch(setVars(getenv), pmix.Open)
}

// serverURIs are the variables through which a PMIx launcher tells its
// clients where its server listens, newest protocol first.
var serverURIs = []string{"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"}

// openFor loads OpenPMIx for a PMIx launch, or says why it cannot serve
// this one: no server URI in the environment (PMIx_Init would have no
// server to reach), or the library's own error.
func openFor(get func(string) (string, bool), open func() (*pmix.Lib, error)) (*pmix.Lib, error) {
	found := false
	for _, k := range serverURIs {
		found = found || has(get, k)
	}
	if !found {
		return nil, fmt.Errorf("no PMIx server in the environment (none of %s)", strings.Join(serverURIs, ", "))
	}
	return open()
}

func checkLaunch(get func(string) (string, bool), open func() (*pmix.Lib, error)) error {
	l, ok := ForeignLaunch(get)
	if Kind(get) == KindPMIx {
		_, err := openFor(get, open)
		switch {
		case err == nil:
			return nil
		case ok:
			l.Why = err.Error()
			return &ForeignLaunchError{Launch: l}
		}
		return nil // a PMIx launch of one process: a singleton will do
	}
	if ok {
		return &ForeignLaunchError{Launch: l}
	}
	return nil
}

var (
	_ Bootstrap = (*Client)(nil)
	_ Bootstrap = (*pmixJob)(nil)
)

// Launchers says, one line each, which launchers this build's ranks join,
// and for PMIx whether OpenPMIx loads on this host and which version:
// what hpcbench version prints.
func Launchers() []string {
	lines := []string{
		"hpcbench launch (its own PMI-1 server)",
		"PMI-1: MPICH's mpiexec (Hydra), Slurm's srun --mpi=pmi2, Flux (simple PMI)",
	}
	const pmixUsers = "PMIx: Open MPI's mpirun, Slurm's srun --mpi=pmix"
	lib, err := pmix.Open()
	switch {
	case !pmix.Built:
		return append(lines, "PMIx: not in this build (built with -tags nopmix: a static binary)")
	case err != nil:
		return append(lines, pmixUsers+": not on this host ("+err.Error()+")")
	}
	return append(lines, pmixUsers+": "+lib.Version()+", "+lib.Path()+" loaded at run time")
}
