package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/ioflag"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
)

// ErrHelp is what Parse returns for -h or --help: the command prints Usage
// and exits 0. It is pflag.ErrHelp, so errors.Is works with either.
var ErrHelp = pflag.ErrHelp

// ErrNoBackends reports a nil or empty registry.
var ErrNoBackends = ioflag.ErrNoBackends

// Config is a parsed IOR command line: the tests to run, in order, each
// validated.
type Config struct {
	// Tests has one entry per test: one for a command line, one per RUN
	// of a -f script. Their ID is their index.
	Tests []Options
	// Args is the command line as given, without the program name, for
	// IOR's "Command line" header.
	Args []string
	// ScriptFile is -f, or "" without a script.
	ScriptFile string
	// Warnings are IOR's warnings about the configuration, without the
	// "WARNING: " prefix; under --warningAsErrors Parse fails instead.
	Warnings []string
}

// Parse turns an IOR command line (args without the program name) into
// validated tests. It accepts IOR's syntax: grouped switches (-wr, -vvv),
// counted switches (-z -z), values as "-b 4m", "-b4m" or "-b=4m", "-F=0",
// long options as "--name=value" or "--name value", -O key=value
// directives, and every backend's namespaced options (--posix.odirect)
// whichever -a selects. Sizes take k, m, g, t and p (powers of 1024);
// fractions and unknown suffixes are errors. If none of -w -r -W -R is
// given, the test writes and reads. A -f script is read from the file
// system.
//
// Errors are one line naming the flag (or the script line) and what it
// accepts; -h and --help return ErrHelp.
func Parse(args []string, reg *aiori.Registry) (*Config, error) {
	return parse(args, reg, func(name string) (io.ReadCloser, error) { return os.Open(name) }, os.Environ())
}

// ParseFS is Parse with the -f script read from fsys, for tests and
// embedded scripts; the script's name must be a valid fs.FS path.
func ParseFS(fsys fs.FS, args []string, reg *aiori.Registry) (*Config, error) {
	return ParseFSEnv(fsys, args, reg, nil)
}

// ParseFSEnv is ParseFS with environ (KEY=VALUE strings) in place of the
// process's environment, where -c's IOR_HINT__MPI__ hints are read.
func ParseFSEnv(fsys fs.FS, args []string, reg *aiori.Registry, environ []string) (*Config, error) {
	return parse(args, reg, func(name string) (io.ReadCloser, error) { return fsys.Open(name) }, environ)
}

// Script limits keep a script's replay (every test re-applies the lines
// before it) bounded.
const (
	maxScriptTests      = 1000
	maxScriptDirectives = 10000
	maxScriptLine       = 64 << 10
)

// parse is Parse with the script opener given; every error it returns but
// ErrHelp prints on one line.
func parse(args []string, reg *aiori.Registry, open func(string) (io.ReadCloser, error), environ []string) (*Config, error) {
	cfg, err := parseTests(args, reg, open)
	if err == nil {
		for i := range cfg.Tests {
			if err = notImplemented(&cfg.Tests[i]); err != nil {
				break
			}
			if err = cfg.Tests[i].resolveHints(environ, open); err != nil {
				break
			}
		}
	}
	if err != nil && !errors.Is(err, ErrHelp) {
		return nil, cliflag.OneLineError{Err: err}
	}
	return cfg, err
}

func parseTests(args []string, reg *aiori.Registry, open func(string) (io.ReadCloser, error)) (*Config, error) {
	p, err := newParser(reg)
	if err != nil {
		return nil, err
	}
	if err := p.parseArgs(args); err != nil {
		return nil, err
	}
	if err := p.formats.Err(); err != nil {
		return nil, err
	}
	cfg := &Config{Args: slices.Clone(args), ScriptFile: p.script}
	if p.script == "" {
		o := p.finish(0)
		if err := o.Validate(); err != nil {
			return nil, err
		}
		cfg.Tests = []Options{o}
		return cfg, nil
	}
	s, err := loadScript(open, p.script)
	if err != nil {
		return nil, fmt.Errorf("-f %s: %w", p.script, err)
	}
	// Check every line once, so that a bad line is reported before the
	// tests it belongs to are built.
	for _, l := range s.lines {
		if err := p.applyDirective(l.d); err != nil {
			return nil, fmt.Errorf("-f %s: line %d: %w", p.script, l.line, err)
		}
	}
	// Each test is the command line plus the script up to its end:
	// replaying gives every test its own backend options.
	for i, end := range s.ends {
		q := p
		if end != len(s.lines) || i != len(s.ends)-1 {
			if q, err = newParser(reg); err != nil {
				return nil, err
			}
			if err := q.parseArgs(args); err != nil {
				return nil, err
			}
			for _, l := range s.lines[:end] {
				if err := q.applyDirective(l.d); err != nil {
					return nil, fmt.Errorf("-f %s: line %d: %w", p.script, l.line, err)
				}
			}
		}
		o := q.finish(i)
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("-f %s: test %d: %w", p.script, i, err)
		}
		cfg.Tests = append(cfg.Tests, o)
	}
	for _, o := range cfg.Tests {
		if o.StoneWallingStatusFile != "" {
			cfg.Warnings = append(cfg.Warnings, "the StoneWallingStatusFile only preserves the last experiment, "+
				"make sure that each run uses a separate status file!")
			break
		}
	}
	for _, o := range cfg.Tests {
		if o.WarningAsErrors && len(cfg.Warnings) > 0 {
			return nil, fmt.Errorf("--warningAsErrors: %s", cfg.Warnings[0])
		}
	}
	return cfg, nil
}

// Usage returns the help text of the options: IOR's, then each backend's
// under "Module NAME".
func Usage(reg *aiori.Registry) string {
	p, err := newParser(reg)
	if err != nil {
		return err.Error() + "\n"
	}
	return p.backends.Usage(p.fs,
		"Options (sizes take k, m, g, t, p = powers of 1024; every long option is also a -O key):\n", nil)
}

// parser holds one test's options as a command line and directives set
// them.
type parser struct {
	reg      *aiori.Registry
	fs       *pflag.FlagSet
	o        Options
	backends *ioflag.Backends
	keys     map[string]string // lower-case directive key → flag name
	formats  cliflag.OneOf     // summaryFormat as given: two different ones are refused
	help     bool
	script   string
	depth    int // -O command-line pieces being applied, one inside another
}

// newParser returns a parser with IOR's defaults and every backend's
// options registered.
func newParser(reg *aiori.Registry) (*parser, error) {
	def, err := ioflag.DefaultBackend(reg, nil)
	if err != nil {
		return nil, err
	}
	p := &parser{
		reg:  reg,
		o:    DefaultOptions(),
		keys: make(map[string]string),
	}
	p.o.API = def.Name
	p.fs = cliflag.NewFlagSet("ior")
	p.addFlags()
	if p.backends, err = ioflag.AddBackends(p.fs, reg); err != nil {
		return nil, err
	}
	p.fs.VisitAll(func(f *pflag.Flag) {
		k := strings.ToLower(f.Name)
		if _, dup := p.keys[k]; !dup && !notDirectives[f.Name] {
			p.keys[k] = f.Name
		}
	})
	return p, nil
}

// addFlags registers IOR's options, bound to p.o. Each long name is IOR's
// parameter name, which is also its -O key.
func (p *parser) addFlags() {
	o, fs := &p.o, p.fs
	sw := func(b *bool, name, short, usage string) {
		fs.VarPF(cliflag.Bool{P: b}, name, short, usage).NoOptDefVal = "true"
	}
	count := func(n *int, name, short, usage string) {
		fs.VarPF(cliflag.Count{P: n, Max: math.MaxInt}, name, short, usage).NoOptDefVal = cliflag.CountUp
	}
	integer := func(n *int, name, short, usage string) { fs.VarP(cliflag.Int{P: n}, name, short, usage) }

	fs.VarP(apiValue{ioflag.API{P: &o.API, Reg: p.reg}}, "api", "a", "I/O backend: "+strings.Join(p.reg.Names(), "|"))
	integer(&o.RefNum, "refNum", "A", "user reference number printed in the summary")
	fs.VarP(cliflag.Size{P: &o.BlockSize}, "blockSize", "b", "contiguous bytes per task per segment")
	sw(&o.Collective, "collective", "c", "collective I/O: ROMIO's two-phase method (hints: -U, --cb_nodes, --cb_buffer_size, --cb_config_list, --romio_cb_write, --romio_cb_read)")
	sw(&o.ReorderTasks, "reorderTasks", "C", "read back data written by another task (constant offset -Q)")
	fs.VarP(secondsValue{&o.InterTestDelay}, "interTestDelay", "d",
		"seconds to wait before each phase; a fraction (0.1) is a real delay, where IOR reads 0")
	integer(&o.DeadlineForStonewalling, "deadlineForStonewalling", "D", "stop a phase after this many seconds (0: off)")
	sw(&o.Fsync, "fsync", "e", "fsync at the end of the write phase")
	sw(&o.UseExistingTestFile, "useExistingTestFile", "E", "do not remove the test file before writing")
	fs.StringVarP(&p.script, "scriptFile", "f", "", "run the tests of this `script` (IOR START … RUN … IOR STOP)")
	sw(&o.FilePerProc, "filePerProc", "F", "one file per task")
	sw(&o.IntraTestBarriers, "intraTestBarriers", "g", "barriers between open, write/read and close")
	fs.VarP(signatureValue{o}, "setTimeStampSignature", "G", "data signature and random seed (default: the time)")
	sw(&p.help, "help", "h", "print this help")
	integer(&o.Repetitions, "repetitions", "i", "repetitions of the test")
	integer(&o.OutlierThreshold, "outlierThreshold", "j", "warn about tasks this many seconds from the mean")
	sw(&o.KeepFile, "keepFile", "k", "keep the test files at the end")
	sw(&o.KeepFileWithError, "keepFileWithError", "K", "keep the test files when verification fails")
	fs.VarP(ioflag.Packet{P: &o.DataPacketType}, "dataPacketType", "l", "data: timestamp, offset, incompressible or random (t, o, i, r)")
	sw(&o.MultiFile, "multiFile", "m", "a new file for every repetition")
	fs.VarP(nodeMemoryValue{o}, "memoryPerNode", "M", "hold this much memory on each node during a test (2g, or 75% of its RAM)")
	fs.Var(taskMemoryValue{o}, "memoryPerTask", "hold this much memory in each task during a test")
	integer(&o.NumTasks, "numTasks", "N", "tasks taking part (-1: all)")
	fs.StringVarP(&o.TestFile, "testFile", "o", o.TestFile, "test file name")
	fs.VarP(directiveValue{p}, "directive", "O", "set options by name: `key=value[,key=value]`, # starts a comment; repeatable")
	integer(&o.TaskPerNodeOffset, "taskPerNodeOffset", "Q", "task offset of -C, minimum offset of -Z")
	sw(&o.ReadFile, "readFile", "r", "read phase")
	sw(&o.CheckRead, "checkRead", "R", "verify the data of the read phase (needs -G without -w)")
	fs.VarP(cliflag.Int64{P: &o.SegmentCount}, "segmentCount", "s", "number of segments")
	fs.VarP(cliflag.Size{P: &o.TransferSize}, "transferSize", "t", "bytes per I/O call (at most 2 GiB - 4 KiB, and what the host's memory holds for its ranks)")
	integer(&o.MaxTimeDuration, "maxTimeDuration", "T", "start no repetition after this many minutes (0: off)")
	sw(&o.UniqueDir, "uniqueDir", "u", "with -F, a directory per task")
	count(&o.Verbose, "verbose", "v", "more output (repeat for more)")
	sw(&o.WriteFile, "writeFile", "w", "write phase")
	sw(&o.CheckWrite, "checkWrite", "W", "read back and verify after writing")
	sw(&o.SingleXferAttempt, "singleXferAttempt", "x", "do not retry short transfers")
	integer(&o.ReorderTasksRandomSeed, "reorderTasksRandomSeed", "X", "seed of -Z (negative: varies per repetition)")
	sw(&o.DualMount, "dualMount", "y", "dual mount points: each task's files under -o, its NUMA node, /data (with -F)")
	sw(&o.FsyncPerWrite, "fsyncPerWrite", "Y", "fsync after every write")
	count(&o.RandomOffset, "randomOffset", "z", "random offsets: shuffled in a block; -z -z: anywhere")
	count(&o.ReorderTasksRandom, "reorderTasksRandom", "Z", "read back data of a random task; -Z -Z: a permutation")

	fs.Var(callValue{&o.CollectiveCall}, "collectiveCall", "-c: one collective call per transfer (transfer, the default, as IOR calls MPI-IO) or per phase (phase: ior-hard's interleaved accesses are aggregated)")
	fs.VarP(cliflag.Path{P: &o.HintsFileName}, "hintsFileName", "U", "-c's hints from this IOR hints `file` (lines IOR_HINT__MPI__key=value)")
	for _, k := range twophase.Keys() {
		fs.Var(hintValue{o: o, key: k}, k, hintUsage[k])
	}
	sw(&o.DryRun, "dryRun", "", "no I/O")
	sw(&o.WarningAsErrors, "warningAsErrors", "", "fail on any warning")
	fs.Var(cliflag.Size{P: &o.RandomPrefill}, "randomPrefill", "with -z, fill the blocks with 0xff in pieces of this size before the writes (not with -D)")
	fs.Var(cliflag.Int64{P: &o.RandomOffsetSeed}, "random-offset-seed", "seed of -z (-1: the time)")
	sw(&o.StoneWallingWearOut, "stoneWallingWearOut", "", "after the -D deadline, all tasks finish the largest count")
	integer(&o.StoneWallingWearOutIterations, "stoneWallingWearOutIterations", "", "stop after this many transfers")
	fs.StringVar(&o.StoneWallingStatusFile, "stoneWallingStatusFile", "", "file carrying the transfer count from write to read")
	integer(&o.MinTimeDuration, "minTimeDuration", "", "repeat the access for at least this many seconds")
	integer(&o.NumNodes, "numNodes", "", "assume this many nodes (0: the job's)")
	integer(&o.NumTasksOnNode0, "numTasksOnNode0", "", "assume this many tasks on the first node (0: the job's)")
	fs.StringVar(&o.Platform, "platform", "", "the JSON platform, in place of the host's")
	fs.StringVar(&o.Debug, "debug", "", "print this note as IOR's DEBUG MODE lines when each test starts")
	integer(&o.InterIODelay, "interIODelay", "", "microseconds between I/O calls")
	fs.Var(cliflag.Path{P: &o.SummaryFile}, "summaryFile", "write the report to this file")
	fs.Var(p.formats.Value("--summaryFormat", summaryFormatValue{&o.SummaryFormat}), "summaryFormat", "report format: default, JSON or CSV")
	fs.StringVar(&o.SaveRankPerformanceDetailsCSV, "saveRankPerformanceDetailsCSV", "", "CSV file of every rank's figures")
	fs.Var(cliflag.Path{P: &o.ArchiveFile}, "archiveFile", "write the run as hpcbench's archive (JSON, schema hpcbench/1) to this file; also --archive")
	fs.Var(cliflag.Path{P: &o.ArchiveFile}, "archive", "same as -O archiveFile")
	fs.StringVar(&o.SavePerOpDataCSV, "savePerOpDataCSV", "", "write PREFIX-REP-RANK.csv: start, duration and throughput of every transfer")
	sw(&o.SummaryAlways, "summaryAlways", "", "IOR's summary after every test: a no-op at -v 0, as in IOR; refused with -v")
	fs.Var(distribution.IntervalValue{D: &o.Interval, Given: &o.IntervalSet}, "interval", "the archive's throughput per interval of this `duration` (default 1s; 1ms to 1h)")
	fs.VarPF(distribution.SteadyValue{S: &o.UntilSteady}, "until-steady", "",
		"end each task's write or read, as -D does, once its throughput per --interval stayed within TOLERANCE of "+
			"its mean for `WINDOW,TOLERANCE` (command line only: -O splits at commas)").NoOptDefVal = distribution.DefaultSteady
}

// directiveValue is -O: each Set applies a list of directives.
type directiveValue struct{ p *parser }

func (v directiveValue) String() string { return "" }

func (v directiveValue) Set(s string) error {
	ds, err := ParseDirectives(s)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := v.p.applyDirective(d); err != nil {
			return err
		}
	}
	return nil
}

func (v directiveValue) Type() string { return "directives" }

// parseArgs parses the command line into p.
func (p *parser) parseArgs(args []string) error {
	words, err := cliflag.ExpandGroups(p.fs, args)
	if err != nil {
		return err
	}
	return cliflag.ParseArgs(p.fs, words, &p.help, p.flagError,
		"IOR options start with - (such as -b 4m or -O key=value)")
}

// finish returns the options of test id: the backend resolved, and -w -r
// when no phase was asked for.
func (p *parser) finish(id int) Options {
	o := p.o
	o.ID = id
	if e, bo, ok := p.backends.Lookup(o.API); ok {
		o.Backend, o.BackendOptions = e, bo
	}
	if !o.WriteFile && !o.ReadFile && !o.CheckWrite && !o.CheckRead {
		o.WriteFile, o.ReadFile = true, true
	}
	return o
}

// flagError rewords pflag's errors as "flag: why", naming IOR's short
// options that hpcbench does not implement.
func (p *parser) flagError(err error) error {
	return ioflag.FlagError(err, p.reg, func(name string, short bool) error {
		if !short {
			return nil
		}
		if u, ok := unsupportedShort[name[0]]; ok {
			return fmt.Errorf("-%c: IOR's %s is not supported: %s", name[0], u.name, u.why)
		}
		return nil
	})
}
