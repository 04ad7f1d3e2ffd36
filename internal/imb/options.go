package imb

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/report"
)

// Defaults and limits of Options, IMB's where IMB has one (IMB_settings.h).
const (
	DefaultMinLog        = 0                // -msglog: smallest non-zero size 2^0
	DefaultMaxLog        = 22               // -msglog: largest size 2^22 = 4 MiB
	MaxLog               = 30               // largest -msglog exponent: 1 GiB
	MaxMsgSize           = 1 << MaxLog      // largest message size, bytes
	MaxSizes             = 1000             // most sizes a -msglen file may list
	DefaultMsgsPerSample = 1000             // -iter: IMB's MSGSPERSAMPLE
	DefaultOverallVol    = 40 << 20         // -iter N,VOL: IMB's OVERALL_VOL, bytes
	MaxMsgsPerSample     = math.MaxInt32    // -iter: IMB's count is a C int
	MaxOverallVolMiB     = 1 << 20          // -iter N,VOL: VOL in MiB, at most 1 TiB
	DefaultTime          = 10 * time.Second // -time: IMB's SECS_PER_SAMPLE
	DefaultNPMin         = 2                // -npmin: IMB's default
	DefaultRoot          = 0                // -root: rooted collectives start at 0
)

// Repetition policies (-iter_policy), the ones of IMB's that make sense
// here.
const (
	// PolicyDynamic times a repetition and cuts the count so a size takes
	// about Time (IMB's default, imode_dynamic).
	PolicyDynamic = "dynamic"
	// PolicyOff runs MsgsPerSample repetitions at every size, ignoring
	// OverallVol and Time (imode_off).
	PolicyOff = "off"
)

// Options configures a run of the IMB engine: IMB-MPI1's command line,
// with IMB's defaults (see NewOptions). The zero value is not valid; start
// from NewOptions.
type Options struct {
	// Benchmarks to run, in order, by IMB's name in any case. Empty means
	// all of them (Names), as IMB-MPI1 without arguments.
	Benchmarks []string
	// MinLog and MaxLog are -msglog MIN:MAX: sizes 0, 2^MIN, 2^(MIN+1), …,
	// 2^MAX. Ignored when MsgLen is set.
	MinLog, MaxLog int
	// MsgLen is the explicit list of sizes from -msglen FILE, in file
	// order; MsgLenFile is that file's name, for the parameter echo.
	MsgLen     []int
	MsgLenFile string
	// MsgsPerSample and OverallVol are -iter N,VOL (VOL in MiB on the
	// command line, bytes here): a size runs min(N, max(1, VOL/size))
	// repetitions before the time cap.
	MsgsPerSample int
	OverallVol    int64
	// IterPolicy is PolicyDynamic or PolicyOff (-iter_policy).
	IterPolicy string
	// Time is the budget per message size (-time): the dynamic policy
	// caps repetitions so that one size takes about this long.
	Time time.Duration
	// NPMin is the smallest process count collectives and Sendrecv and
	// Exchange run at (-npmin); they run at NPMin, 2·NPMin, … and the job
	// size, as IMB does.
	NPMin int
	// Root is the root of Bcast, Scatter, Gather and Reduce (-root; not
	// an IMB option: IMB always starts at 0). On fewer processes than
	// Root+1 the root is Root mod the process count.
	Root int
	// RootShift moves the root by one rank after every repetition, from
	// Root (IMB's -root_shift on; off by default, as in IMB).
	RootShift bool
	// Sync puts a barrier after every repetition of a collective, outside
	// the timed region (IMB's -sync, on by default).
	Sync bool
	// Check verifies every result buffer (-check): send buffers are
	// filled deterministically per rank and size, every received or
	// reduced buffer is compared exactly with what it must hold, and
	// defects are counted in a "defects" column.
	Check bool
	// Interval is the length of an interval of the "series" table
	// (--interval); 0 means distribution.DefaultInterval.
	Interval time.Duration
	// Alg and Fabric are carried through for the caller (--alg, --fabric)
	// and echoed; the engine does not read them.
	Alg, Fabric string
	// Env holds facts about the job that the caller knows and the engine
	// reports (transport, hosts, CPUs); it is not validated.
	Env Env
	// Group makes sub-communicators for process counts below the job size.
	// Nil means none: the point-to-point benchmarks then run over the
	// job's communicator, and collectives run at the job size only.
	Group GroupFunc

	// distComm, when set, is the communicator the distributions are
	// reduced over instead of the job's (which must otherwise be a
	// *collectives.Comm): tests run the benchmarks over a fake world with
	// virtual time and reduce over a real mesh beside it.
	distComm *collectives.Comm
}

// Env is what the caller knows about the job, for Run.Env of the result.
type Env struct {
	// Run is the run record (internal/run's): the command line, version
	// and hosts the Result's Run starts from.
	Run       report.Run
	Transport string // fabric transport in use ("shm", "tcp")
	// CPUs is the number of online CPUs on a host and HostRanks the most
	// ranks any one host runs (0 means all ranks on one host); more ranks
	// than CPUs is reported as oversubscribed.
	CPUs, HostRanks int
	// RankHosts names the host of every rank of the job, indexed by
	// rank (run.Record.RankHosts), for the "ranks" and "hosts" tables;
	// ranks it does not name are on host "?".
	RankHosts []string
	// Extra facts to report as they are ("launcher", "pmi").
	Extra map[string]string
	// Phase, if not nil, is told on every rank as each benchmark's table
	// goes through its message sizes: the table's name ("Allreduce",
	// "PingPong"), the size's index, and the sizes done out of the
	// table's.
	Phase func(name string, iter int, done, total int64)
}

// NewOptions returns IMB-MPI1's defaults: every benchmark, -msglog 0:22,
// -iter 1000,40, -iter_policy dynamic, -time 10, -npmin 2, root 0 without
// shifting, -sync on, no checking.
func NewOptions() Options {
	return Options{
		MinLog:        DefaultMinLog,
		MaxLog:        DefaultMaxLog,
		MsgsPerSample: DefaultMsgsPerSample,
		OverallVol:    DefaultOverallVol,
		IterPolicy:    PolicyDynamic,
		Time:          DefaultTime,
		NPMin:         DefaultNPMin,
		Root:          DefaultRoot,
		Sync:          true,
	}
}

// Validate reports the first invalid option, naming its flag and the
// accepted range.
func (o *Options) Validate() error {
	for _, name := range o.Benchmarks {
		if _, err := lookup(name); err != nil {
			return fmt.Errorf("benchmark: %w", err)
		}
	}
	if len(o.MsgLen) == 0 {
		if o.MinLog < 0 || o.MaxLog > MaxLog || o.MinLog >= o.MaxLog {
			return fmt.Errorf("-msglog %d:%d: want MIN:MAX with 0 <= MIN < MAX <= %d", o.MinLog, o.MaxLog, MaxLog)
		}
	} else {
		if len(o.MsgLen) > MaxSizes {
			return fmt.Errorf("-msglen: %d sizes: at most %d", len(o.MsgLen), MaxSizes)
		}
		for _, s := range o.MsgLen {
			if s < 0 || s > MaxMsgSize {
				return fmt.Errorf("-msglen: size %d: must be in [0, %d]", s, MaxMsgSize)
			}
		}
	}
	if o.MsgsPerSample < 1 || o.MsgsPerSample > MaxMsgsPerSample {
		return fmt.Errorf("-iter %d: repetitions must be in [1, %d]", o.MsgsPerSample, MaxMsgsPerSample)
	}
	if o.OverallVol < 0 || o.OverallVol > MaxOverallVolMiB<<20 {
		return fmt.Errorf("-iter N,VOL: VOL %d bytes: must be in [0, %d] MiB", o.OverallVol, MaxOverallVolMiB)
	}
	if o.IterPolicy != PolicyDynamic && o.IterPolicy != PolicyOff {
		return fmt.Errorf("-iter_policy %q: must be %s or %s", o.IterPolicy, PolicyDynamic, PolicyOff)
	}
	if o.Time <= 0 {
		return fmt.Errorf("-time %v: must be positive", o.Time)
	}
	if o.NPMin < 1 {
		return fmt.Errorf("-npmin %d: must be at least 1", o.NPMin)
	}
	if o.Root < 0 {
		return fmt.Errorf("-root %d: must be a rank, at least 0", o.Root)
	}
	if o.Interval != 0 {
		if err := distribution.CheckInterval(o.Interval); err != nil {
			return err
		}
	}
	return nil
}

// interval returns the series' interval: Interval, or distribution's default.
func (o *Options) interval() time.Duration {
	if o.Interval == 0 {
		return distribution.DefaultInterval
	}
	return o.Interval
}

// selected returns the benchmarks to run: Benchmarks in IMB's spelling with
// repeats dropped, or all of them. Validate has checked the names.
func (o *Options) selected() []benchmark {
	if len(o.Benchmarks) == 0 {
		return benchmarks()
	}
	var out []benchmark
	seen := make(map[string]bool)
	for _, name := range o.Benchmarks {
		b, err := lookup(name)
		if err != nil || seen[b.name] {
			continue
		}
		seen[b.name] = true
		out = append(out, b)
	}
	return out
}

// selectedNames returns the names of the benchmarks to run.
func (o *Options) selectedNames() []string {
	var names []string
	for _, b := range o.selected() {
		names = append(names, b.name)
	}
	return names
}

// onOff spells a switch as IMB's -sync and -root_shift take it.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// iterSpec spells MsgsPerSample and OverallVol as -iter takes them.
func (o *Options) iterSpec() string {
	if o.OverallVol%(1<<20) == 0 {
		return fmt.Sprintf("%d,%d", o.MsgsPerSample, o.OverallVol>>20)
	}
	return fmt.Sprintf("%d (overall volume %d bytes)", o.MsgsPerSample, o.OverallVol)
}

// sizesSpec describes the message sizes for the parameter echo.
func (o *Options) sizesSpec() (name, value string) {
	if len(o.MsgLen) > 0 {
		strs := make([]string, len(o.MsgLen))
		for i, s := range o.MsgLen {
			strs[i] = fmt.Sprint(s)
		}
		v := strings.Join(strs, " ")
		if o.MsgLenFile != "" {
			v = o.MsgLenFile + ": " + v
		}
		return report.IMBParamMsglen, v
	}
	return "msglog", fmt.Sprintf("%d:%d", o.MinLog, o.MaxLog)
}

// ValidateSize checks what depends on the job's size n: -root must be one
// of its ranks. The error is one line naming the flag and the range.
func (o *Options) ValidateSize(n int) error {
	if o.Root >= n {
		return fmt.Errorf("-root %d: want a rank of the job, in [0, %d]", o.Root, n-1)
	}
	return nil
}

// BufferBytes returns the most memory a rank's message buffers take in a
// job of np ranks: the engine keeps one send and one receive buffer (and
// with -check one for the expected result), each grown to the largest any
// selected benchmark needs at its largest message size (Alltoall's are np
// times the message).
func (o *Options) BufferBytes(np int) int64 {
	var send, recv int64
	for _, b := range o.selected() {
		sz := sizes(o, b)
		if len(sz) == 0 {
			continue
		}
		largest := slices.Max(sz)
		s, r := b.bufs(largest, max(1, np))
		send, recv = max(send, int64(s)), max(recv, int64(r))
	}
	if o.Check {
		return send + 2*recv
	}
	return send + recv
}

// SizesFlag returns the option that set the message sizes, as given:
// "-msglog 0:22" or "-msglen FILE".
func (o *Options) SizesFlag() string {
	if len(o.MsgLen) > 0 {
		return "-msglen " + o.MsgLenFile
	}
	return fmt.Sprintf("-msglog %d:%d", o.MinLog, o.MaxLog)
}

// CheckMemory refuses, in one line naming the option that set the sizes,
// a run whose buffers do not fit this host's memory for its ranks ranks
// in a job of np.
func (o *Options) CheckMemory(np, ranks int, host hostmem.HostMemory) error {
	if err := hostmem.BufferError(o.BufferBytes(np), ranks, host); err != nil {
		return fmt.Errorf("%s: %w", o.SizesFlag(), err)
	}
	return nil
}
