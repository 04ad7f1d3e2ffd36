// Package launch is hpcbench's launcher: it starts the N ranks of a job on
// this host, serves them PMI-1 through a pmi.Server over one socketpair per
// rank (or a loopback PMI_PORT), forwards their output line by line, forwards
// SIGINT/SIGTERM, and fails fast: the first rank that exits non-zero, dies by
// a signal, drops its PMI connection before finalize or calls abort ends the
// job, and the launcher reports that rank.
package launch

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/pmi"
)

// Defaults for Options.
const (
	DefaultGrace = 2 * time.Second // SIGTERM → SIGKILL delay when a job is torn down
	MaxRanks     = 65536
)

// DefaultRsh is the remote shell that starts a proxy on each host of a job
// across hosts when Options.Rsh is empty: the host's name follows it.
var DefaultRsh = []string{"ssh", "-o", "BatchMode=yes"}

// Options configures one job.
type Options struct {
	N       int      // number of ranks, 1..MaxRanks
	Command []string // program and arguments; "hpcbench" means this executable
	// Self is the path of this executable, substituted for a command named
	// "hpcbench"; empty disables the substitution.
	Self string
	// Env is the environment the ranks inherit before PMI variables are
	// added; PMI_*, HYDI_* and MPI_LOCAL* entries are removed from it, and
	// GOMAXPROCS=1 is added on a crowded host unless it sets GOMAXPROCS
	// (see crowdVars).
	Env []string
	Dir string // working directory of the ranks; "" is the launcher's
	// Stdin, when not nil, is forwarded to rank 0 as Hydra does (the other
	// ranks read /dev/null); nil, /dev/null, or a terminal of which the
	// launcher is in the background give every rank /dev/null.
	Stdin     *os.File
	Stdout    io.Writer     // where ranks' stdout lines go
	Stderr    io.Writer     // where ranks' stderr lines and launcher diagnostics go
	TagOutput bool          // prefix each line with "[rank] "
	PMIPort   bool          // serve PMI over loopback TCP (PMI_PORT + PMI_ID) instead of PMI_FD
	TraceDir  string        // write each rank's PMI wire lines to TraceDir/rank<R>.txt
	Timeout   time.Duration // bound on the whole job; 0 means none
	Grace     time.Duration // SIGTERM → SIGKILL delay; DefaultGrace when 0
	Verbose   bool          // launcher diagnostics on stderr even on success
	// Bind binds each rank to CPUs before it starts (see Binding); "" is
	// BindNone, Hydra's default.
	Bind Binding
	// PhaseTimeout configures the watchdog: 0 derives its deadlines (a
	// rank stopped for DefaultStopDeadline; a rank still in a phase
	// max(MinPhaseDeadline, twice what it took the first rank to leave)
	// after another rank left it), a positive value is every deadline,
	// PhaseTimeoutOff turns it off. A job the watchdog ends exits
	// ExitWatchdog.
	PhaseTimeout time.Duration
	// Progress asks for plain progress lines on Stderr every
	// ProgressInterval (progress.DefaultLineInterval when 0) where it is
	// not a terminal; on a terminal the launcher draws the job's bar
	// anyway. Either way the ranks are told (progress.EnvLauncher) that
	// the launcher shows the job's progress.
	Progress         bool
	ProgressInterval time.Duration
	// Hosts, when not empty, places the ranks on these hosts (one proxy each); empty runs every rank on this host.
	Hosts []HostRanks
	// Rsh is the command that runs a proxy on a host of Hosts, as words
	// (--rsh): "{host}" in a word is replaced by the host's name, and
	// without one the name is the first argument after the words, as
	// ssh takes it; the proxy's command line follows. DefaultRsh when
	// empty.
	Rsh []string
	// ProxyPath is the hpcbench executable the hosts run as the proxy
	// (--proxy-path); Self when empty.
	ProxyPath string
	// Fork starts every host's proxy on this machine, without a remote
	// shell, with HPCBENCH_HOSTNAME set to the host's name, as Hydra's
	// -launcher fork does with made-up host names: many hosts simulated
	// on one machine, at the cost of a proxy each and nothing more. Rsh
	// is not used.
	Fork bool
}

// HostRanks is one host of a job across hosts and the ranks it runs, ascending.
type HostRanks struct {
	Name  string
	Ranks []int
}

// Validate reports the first invalid field, naming the flag it comes from.
func (o *Options) Validate() error {
	if o.N < 1 || o.N > MaxRanks {
		return fmt.Errorf("-n %d: must be in [1, %d]", o.N, MaxRanks)
	}
	if len(o.Command) == 0 || o.Command[0] == "" {
		return fmt.Errorf("missing command: usage is hpcbench launch -n N [flags] -- CMD [ARGS...]")
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout %v: must not be negative", o.Timeout)
	}
	if o.Bind != "" {
		if _, err := ParseBinding(string(o.Bind)); err != nil {
			return err
		}
	}
	if o.PhaseTimeout < 0 && o.PhaseTimeout != PhaseTimeoutOff {
		return fmt.Errorf("--phase-timeout %v: must not be negative", o.PhaseTimeout)
	}
	if o.ProgressInterval != 0 {
		if err := progress.CheckLineInterval(o.ProgressInterval); err != nil {
			return fmt.Errorf("--progress-interval %w", err)
		}
	}
	if o.Grace < 0 {
		return fmt.Errorf("--grace %v: must not be negative", o.Grace)
	}
	if len(o.Hosts) > 0 {
		return o.validateHosts()
	}
	return nil
}

// validateHosts checks that Hosts places every rank once, on hosts with
// names, and the options that go with them.
func (o *Options) validateHosts() error {
	if len(o.Hosts) > o.N {
		return fmt.Errorf("--hosts: %d hosts for %d ranks: every host must run a rank", len(o.Hosts), o.N)
	}
	seen := make([]bool, o.N)
	for _, h := range o.Hosts {
		if h.Name == "" || strings.ContainsAny(h.Name, " \t\n") {
			return fmt.Errorf("--hosts: host name %q: want a name without spaces", h.Name)
		}
		if len(h.Ranks) == 0 {
			return fmt.Errorf("--hosts: host %s runs no rank", h.Name)
		}
		for i, r := range h.Ranks {
			if r < 0 || r >= o.N || seen[r] || (i > 0 && r <= h.Ranks[i-1]) {
				return fmt.Errorf("--hosts: host %s: rank %d: want each of the %d ranks once, ascending on each host", h.Name, r, o.N)
			}
			seen[r] = true
		}
	}
	for r, ok := range seen {
		if !ok {
			return fmt.Errorf("--hosts: rank %d is on no host", r)
		}
	}
	if o.PMIPort {
		return fmt.Errorf("--pmi-port: not across hosts: each host's ranks use PMI_FD")
	}
	// MPICH reads the mapping through a 1024-byte line; a layout that
	// does not repeat (each host a different count) may not fit.
	if m := processMappingOf(o.Hosts); len(m) > maxMapping {
		return fmt.Errorf("--hosts: the layout's PMI_process_mapping takes %d bytes, more than PMI's %d: give the hosts slots that repeat", len(m), maxMapping)
	}
	return nil
}

// maxMapping is the longest PMI_process_mapping value a PMI-1 get reply
// carries under MPICH's 1024-byte line ("cmd=get_result rc=0 value=" and
// the newline take the rest).
const maxMapping = pmi.MaxLine - 64
