package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/ioflag"
	"github.com/hpcbench/hpcbench/internal/units"
)

// ErrHelp is what Parse returns for -h or --help: the command prints Usage
// and exits 0. It is pflag.ErrHelp, so errors.Is works with either.
var ErrHelp = pflag.ErrHelp

// ErrNoBackends reports a nil or empty registry.
var ErrNoBackends = ioflag.ErrNoBackends

// Parse turns an mdtest command line (args without the program name) into
// validated Options. It accepts mdtest 4's syntax: grouped switches (-FCr,
// -vv), values as "-n 100", "-n100" or "-n=100", "-u=0", long options as
// "--name=value" or "--name value", and every backend's namespaced options
// (--posix.odirect) whichever -a selects. Integers take k, m, g, t and p
// suffixes (powers of 1024), as mdtest's do; sizes (-w, -e) take k, m, g,
// t; fractions and unknown suffixes are errors. If none of -C -T -E -r -U
// is given, every phase runs, the directory rename included.
//
// Errors are one line naming the flag and what it accepts; -h and --help
// return ErrHelp.
func Parse(args []string, reg *aiori.Registry) (*Options, error) {
	o, err := parse(args, reg)
	if err != nil {
		if errors.Is(err, ErrHelp) {
			return nil, err
		}
		return nil, cliflag.OneLineError{Err: err, Unicode: true}
	}
	return o, nil
}

func parse(args []string, reg *aiori.Registry) (*Options, error) {
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
	o := p.finish()
	if err := outputFormatAgrees(&o, p.fs.Changed("format")); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &o, nil
}

// Usage returns the help text of the options: mdtest's, then each
// backend's under "Module NAME".
func Usage(reg *aiori.Registry) string {
	p, err := newParser(reg)
	if err != nil {
		return err.Error() + "\n"
	}
	// Only the backends mdtest drives: -a MMAP is refused, as mdtest C's.
	return p.backends.Usage(p.fs, "Options (integers and sizes take k, m, g, t = powers of 1024):\n",
		func(e aiori.Entry) bool { return e.Metadata })
}

// parser holds the options as the command line sets them.
type parser struct {
	reg      *aiori.Registry
	fs       *pflag.FlagSet
	o        Options
	backends *ioflag.Backends
	help     bool
	formats  cliflag.OneOf // --format as given, to refuse two choices
}

// newParser returns a parser with mdtest's defaults and every backend's
// options registered. The default backend is the registry's first that
// supports mdtest (the first of all when none does, so that Validate can
// say so).
func newParser(reg *aiori.Registry) (*parser, error) {
	def, err := ioflag.DefaultBackend(reg, func(e aiori.Entry) bool { return e.Metadata })
	if err != nil {
		return nil, err
	}
	p := &parser{reg: reg, o: DefaultOptions()}
	p.o.API = def.Name
	p.fs = cliflag.NewFlagSet("mdtest")
	p.addFlags()
	if p.backends, err = ioflag.AddBackends(p.fs, reg); err != nil {
		return nil, err
	}
	return p, nil
}

// metadataNames returns the names of the backends that support mdtest, in
// registry order (mdtest's aiori_supported_apis(…, MDTEST)).
func metadataNames(reg *aiori.Registry) []string {
	var names []string
	for _, e := range reg.Entries() {
		if e.Metadata {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return []string{"(none in this build)"}
	}
	return names
}

// addFlags registers mdtest's options, bound to p.o. mdtest's short-only
// options get long names after its mdtest_options_t fields; its own long
// options keep their spelling.
func (p *parser) addFlags() {
	o, fs := &p.o, p.fs
	sw := func(b *bool, name, short, usage string) {
		fs.VarPF(cliflag.Bool{P: b}, name, short, usage).NoOptDefVal = "true"
	}
	integer := func(n *int, name, short, usage string) {
		fs.VarP(cliflag.Int32{P: n, Parse: cliflag.ParseSuffixedInt}, name, short, usage)
	}
	items := func(n *int64, name, short, usage string) {
		fs.VarP(cliflag.Int64{P: n, Parse: cliflag.ParseSuffixedInt}, name, short, usage)
	}
	size := func(n *int64, name, short, usage string) {
		fs.VarP(cliflag.Size{P: n, Parse: units.ParseSize}, name, short, usage)
	}
	text := func(s *string, name, short, usage string) { fs.StringVarP(s, name, short, *s, usage) }

	apis := metadataNames(p.reg)
	fs.VarP(ioflag.API{P: &o.API, Reg: p.reg, Names: apis}, "api", "a", "I/O backend: "+strings.Join(apis, "|"))
	items(&o.Items, "items", "n", "items (directories and files) each rank creates, stats, reads and removes")
	items(&o.ItemsPerDir, "items-per-dir", "I", "items per directory of the tree")
	integer(&o.Depth, "depth", "z", "depth of the directory tree")
	integer(&o.Branch, "branch-factor", "b", "branching factor of the directory tree")
	sw(&o.LeafOnly, "leaf-only", "L", "items only in the leaf directories of the tree")
	fs.VarP(dirsValue{&o.Dirs}, "dir", "d", "directory the test runs in, made if missing but not its parent; several joined by @ (needs -u)")
	sw(&o.UniqueDir, "unique-dir-per-task", "u", "a tree per rank")
	sw(&o.TimeUniqueDir, "time-unique-dir-overhead", "t", "accepted for mdtest's command lines; hpcbench never changes into the tree, so there is nothing to time")
	sw(&o.FilesOnly, "files-only", "F", "files only, no directories")
	sw(&o.DirsOnly, "dirs-only", "D", "directories only, no files")
	sw(&o.Create, "create-only", "C", "create phase (none of -C -T -E -r -U: every phase)")
	sw(&o.Stat, "stat-only", "T", "stat phase")
	sw(&o.Read, "read-only", "E", "read phase")
	sw(&o.Remove, "remove-only", "r", "remove phase")
	sw(&o.Rename, "rename-dirs", "U", "directory rename phase")
	size(&o.WriteBytes, "write-bytes", "w", "bytes to write to each file after it is created")
	size(&o.ReadBytes, "read-bytes", "e", "bytes to read from each file")
	integer(&o.Iterations, "iterations", "i", "number of iterations")
	integer(&o.Stride, "nstride", "N", "rank stride between create and the later phases (1 defeats the client cache)")
	fs.VarPF(randomValue{o}, "random", "R", "stat and read in a random order; =N also sets the seed").NoOptDefVal = randomNoSeed
	integer(&o.RandomSeed, "random-seed", "", "seed of -R (0: the time)")
	sw(&o.SharedFile, "shared-file", "S", "all ranks access one shared file (no directory phases)")
	sw(&o.Collective, "collective-creates", "c", "rank 0 creates and removes every rank's items")
	sw(&o.Mknod, "make-node", "k", "create files with mknod")
	sw(&o.Fsync, "sync-file", "y", "fsync each file after writing it")
	sw(&o.SyncPhases, "call-sync", "Y", "sync the file system after each phase (timed)")
	integer(&o.NoBarriers, "no-barriers", "B", "no barriers between phases: mdtest 4 takes a value here; only 0 (barriers on) is accepted")
	integer(&o.StonewallSeconds, "stonewall-timer", "W", "stop the file create phase after this many `seconds` (0: off)")
	text(&o.StonewallStatusFile, "stonewall-status-file", "x", "file carrying the stonewalled item count to later runs")
	sw(&o.VerifyRead, "verify-read", "X", "verify the data read")
	sw(&o.VerifyWrite, "verify-write", "", "read each file back after writing and verify it")
	integer(&o.DataSeed, "random-buffer-offset", "G", "offset (seed) of the data pattern (-1: the time)")
	fs.Var(ioflag.Packet{P: &o.DataPacketType}, "dataPacketType", "data: timestamp, offset, incompressible or random (t, o, i, r)")
	sw(&o.PrintTime, "print-rate-and-time", "P", "print the time table after the rate table")
	sw(&o.TimeOnly, "print-time", "Z", "print the time table instead of the rate table")
	sw(&o.ShowRankStatistics, "showRankStatistics", "", "per-rank max, min and mean columns")
	sw(&o.PrintAllProcs, "print-all-procs", "", "print every rank's figures")
	integer(&o.FirstTasks, "first", "f", "first number of ranks to run with (needs -l)")
	integer(&o.LastTasks, "last", "l", "last number of ranks to run with (0: the job size only)")
	integer(&o.TasksStride, "stride", "s", "step between the numbers of ranks")
	integer(&o.PreDelay, "pre-delay", "p", "`seconds` to wait before each iteration")
	text(&o.RunCmdBeforePhase, "run-cmd-before-phase", "", "shell `command` run before each phase (not timed)")
	text(&o.RunCmdAfterPhase, "run-cmd-after-phase", "", "shell `command` run after each phase (timed)")
	fs.Var(cliflag.Path{P: &o.SaveRankPerformanceDetails}, "saveRankPerformanceDetails", "CSV `file` of every rank's rates and times")
	text(&o.SavePerOpDataCSV, "savePerOpDataCSV", "", "`prefix` of per-rank CSV files of every file operation")
	fs.VarPF(cliflag.Count{P: &o.Verbose, Parse: cliflag.ParseSuffixedInt}, "verbose", "v", "more output (repeat for more)").NoOptDefVal = cliflag.CountUp
	integer(&o.Verbose, "verbosity", "V", "verbosity `level`")
	sw(&o.WarningAsErrors, "warningAsErrors", "", "fail on any warning")
	fs.Var(p.formats.Value("--format", formatValue{&o.Format}), "format", "report format: human, json or csv (to stdout, or to --output)")
	fs.Var(cliflag.Path{P: &o.Output}, "output", "write the --format report to this `file`; stdout then gets the human report")
	fs.Var(distribution.IntervalValue{D: &o.Interval}, "interval", "length of the archive's time-series intervals (1ms to 1h)")
	fs.VarPF(distribution.SteadyValue{S: &o.Steady}, "until-steady", "",
		"end each rank's share of a creation phase once its rate is steady: every --interval of the last window (a duration) within tolerance per cent of their mean (bare: "+distribution.DefaultSteady+"); the phase then ends as with -W, and the later phases work on the items created").NoOptDefVal = distribution.DefaultSteady
	fs.Var(cliflag.Path{P: &o.Archive}, "archive", "write the run as hpcbench's archive (JSON, schema hpcbench/1) to this `file`")
	sw(&p.help, "help", "h", "print this help")
}

// parseArgs parses the command line into p, its single-dash words split as
// mdtest's option parser (IOR's src/option.c) reads them
// (cliflag.ExpandGroups), after refusing those it misreads
// (checkMisreads).
func (p *parser) parseArgs(args []string) error {
	if err := checkMisreads(p.fs, args); err != nil {
		return err
	}
	split, err := cliflag.ExpandGroups(p.fs, args)
	if err != nil {
		return err
	}
	return cliflag.ParseArgs(p.fs, split, &p.help, p.flagError,
		"mdtest options start with - (such as -n 100 or -d dir)")
}

// finish returns the options: the backend resolved, every phase when none
// was asked for, and the --output format from its extension when --format
// was not given.
func (p *parser) finish() Options {
	o := p.o
	o.Dirs = append([]string(nil), o.Dirs...)
	if e, bo, ok := p.backends.Lookup(o.API); ok {
		o.Backend, o.BackendOptions = e, bo
	}
	if !o.Create && !o.Stat && !o.Read && !o.Remove && !o.Rename {
		o.Create, o.Stat, o.Read, o.Remove, o.Rename = true, true, true, true, true
	}
	if o.Output != "" && !p.fs.Changed("format") {
		o.Format = FormatJSON
		if strings.EqualFold(filepath.Ext(o.Output), ".csv") {
			o.Format = FormatCSV
		}
	}
	return o
}

// outputFormatAgrees refuses --format with an --output whose name says
// the other format (--format json --output r.csv): the file would hold
// what its name does not say. Other names take --format as it is.
func outputFormatAgrees(o *Options, formatGiven bool) error {
	if o.Output == "" || !formatGiven {
		return nil
	}
	var named string
	switch strings.ToLower(filepath.Ext(o.Output)) {
	case ".csv":
		named = FormatCSV
	case ".json":
		named = FormatJSON
	default:
		return nil
	}
	if o.Format != named {
		return fmt.Errorf("--format %s and --output %s: the file's name says %s; choose one", o.Format, o.Output, named)
	}
	return nil
}

// unsupportedShort names mdtest's short options that hpcbench refuses.
var unsupportedShort = map[byte]string{
	'g': "-g (Lustre global directory layout) is not supported by hpcbench",
}

// unsupportedLong names mdtest's long options that hpcbench refuses.
var unsupportedLong = map[string]string{
	"allocateBufferOnGPU": "GPU buffers", "GPUid": "GPU selection", "gpuDirect": "GPUDirect",
}

// flagError rewords pflag's errors as "flag: why", naming the mdtest
// options that hpcbench refuses.
func (p *parser) flagError(err error) error {
	return ioflag.FlagError(err, p.reg, func(name string, short bool) error {
		if !short {
			if what, ok := unsupportedLong[name]; ok {
				return fmt.Errorf("--%s: mdtest's %s option is not supported by hpcbench", name, what)
			}
			return nil
		}
		c := name[0]
		if why, ok := unsupportedShort[c]; ok {
			return errors.New(why)
		}
		if c < 0x80 && unicode.IsDigit(rune(c)) {
			return fmt.Errorf("unknown option %q: a switch takes a number only as -X=N (a seed for -R: -R=%c or --random-seed=%c)", "-"+name, c, c)
		}
		return nil
	})
}
