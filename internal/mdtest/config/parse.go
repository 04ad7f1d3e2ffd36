package config

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
)

// ErrHelp is what Parse returns for -h or --help: the command prints Usage
// and exits 0. It is pflag.ErrHelp, so errors.Is works with either.
var ErrHelp = pflag.ErrHelp

// ErrNoBackends reports a nil or empty registry.
var ErrNoBackends = errors.New("no I/O backends registered")

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
		return nil, oneLineError{err}
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
	o := p.finish()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &o, nil
}

// oneLineError prints an error with control characters replaced, so that
// what the user typed (or a backend's message) cannot break the line; the
// chain stays reachable for errors.Is.
type oneLineError struct{ err error }

func (e oneLineError) Error() string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return '?'
		}
		return r
	}, e.err.Error())
}

func (e oneLineError) Unwrap() error { return e.err }

// Usage returns the help text of the options: mdtest's, then each
// backend's under "Module NAME".
func Usage(reg *aiori.Registry) string {
	p, err := newParser(reg)
	if err != nil {
		return err.Error() + "\n"
	}
	own := pflag.NewFlagSet("mdtest", pflag.ContinueOnError)
	own.SortFlags = false
	p.fs.VisitAll(func(f *pflag.Flag) {
		if !p.backendFlag[f.Name] {
			own.AddFlag(f)
		}
	})
	var b strings.Builder
	b.WriteString("Options (integers and sizes take k, m, g, t = powers of 1024):\n")
	b.WriteString(own.FlagUsages())
	for _, s := range p.sections {
		if !s.fs.HasFlags() {
			continue
		}
		fmt.Fprintf(&b, "\nModule %s:\n%s", s.name, s.fs.FlagUsages())
	}
	return b.String()
}

// section is one backend's flags, for Usage.
type section struct {
	name string
	fs   *pflag.FlagSet
}

// parser holds the options as the command line sets them.
type parser struct {
	reg         *aiori.Registry
	fs          *pflag.FlagSet
	o           Options
	backends    map[string]aiori.Options // by Entry.Name
	backendFlag map[string]bool
	sections    []section
	help        bool
}

// newParser returns a parser with mdtest's defaults and every backend's
// options registered. The default backend is the registry's first that
// supports mdtest (the first of all when none does, so that Validate can
// say so).
func newParser(reg *aiori.Registry) (*parser, error) {
	if reg == nil {
		return nil, ErrNoBackends
	}
	def, ok := reg.Default()
	if !ok {
		return nil, ErrNoBackends
	}
	for _, e := range reg.Entries() {
		if e.Metadata {
			def = e
			break
		}
	}
	p := &parser{
		reg:         reg,
		o:           DefaultOptions(),
		backends:    make(map[string]aiori.Options),
		backendFlag: make(map[string]bool),
	}
	p.o.API = def.Name
	p.fs = pflag.NewFlagSet("mdtest", pflag.ContinueOnError)
	p.fs.SetOutput(io.Discard)
	p.fs.SortFlags = false
	p.addFlags()
	for _, e := range reg.Entries() {
		if err := p.addBackend(e); err != nil {
			return nil, err
		}
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

// addBackend registers e's options under their namespaced names.
func (p *parser) addBackend(e aiori.Entry) (err error) {
	bo := e.NewOptions()
	if bo == nil {
		return fmt.Errorf("backend %s: NewOptions returned nil", e.Name)
	}
	bfs := pflag.NewFlagSet(e.Name, pflag.ContinueOnError)
	bfs.SetOutput(io.Discard)
	bfs.SortFlags = false
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("backend %s: registering options: %v", e.Name, r)
		}
	}()
	bo.AddFlags(bfs)
	bfs.VisitAll(func(f *pflag.Flag) {
		switch {
		case err != nil:
		case p.fs.Lookup(f.Name) != nil:
			err = fmt.Errorf("backend %s: option --%s is defined twice", e.Name, f.Name)
		case f.Shorthand != "":
			err = fmt.Errorf("backend %s: option --%s has a short form; backend options are long only", e.Name, f.Name)
		default:
			p.fs.AddFlag(f)
			p.backendFlag[f.Name] = true
		}
	})
	p.backends[e.Name] = bo
	p.sections = append(p.sections, section{e.Name, bfs})
	return err
}

// addFlags registers mdtest's options, bound to p.o. mdtest's short-only
// options get long names after its mdtest_options_t fields; its own long
// options keep their spelling.
func (p *parser) addFlags() {
	o, fs := &p.o, p.fs
	sw := func(b *bool, name, short, usage string) {
		fs.VarPF(boolValue{b}, name, short, usage).NoOptDefVal = "true"
	}
	integer := func(n *int, name, short, usage string) { fs.VarP(intValue{n}, name, short, usage) }
	text := func(s *string, name, short, usage string) { fs.StringVarP(s, name, short, *s, usage) }

	fs.VarP(apiValue{&o.API, p.reg}, "api", "a", "I/O backend: "+strings.Join(metadataNames(p.reg), "|"))
	fs.VarP(int64Value{&o.Items}, "items", "n", "items (directories and files) each rank creates, stats, reads and removes")
	fs.VarP(int64Value{&o.ItemsPerDir}, "items-per-dir", "I", "items per directory of the tree")
	integer(&o.Depth, "depth", "z", "depth of the directory tree")
	integer(&o.Branch, "branch-factor", "b", "branching factor of the directory tree")
	sw(&o.LeafOnly, "leaf-only", "L", "items only in the leaf directories of the tree")
	fs.VarP(dirsValue{&o.Dirs}, "dir", "d", "directory the test runs in; several joined by @ (needs -u)")
	sw(&o.UniqueDir, "unique-dir-per-task", "u", "a tree per rank")
	sw(&o.TimeUniqueDir, "time-unique-dir-overhead", "t", "time changing into each rank's tree (with -u)")
	sw(&o.FilesOnly, "files-only", "F", "files only, no directories")
	sw(&o.DirsOnly, "dirs-only", "D", "directories only, no files")
	sw(&o.Create, "create-only", "C", "create phase (none of -C -T -E -r -U: every phase)")
	sw(&o.Stat, "stat-only", "T", "stat phase")
	sw(&o.Read, "read-only", "E", "read phase")
	sw(&o.Remove, "remove-only", "r", "remove phase")
	sw(&o.Rename, "rename-dirs", "U", "directory rename phase")
	fs.VarP(sizeValue{&o.WriteBytes}, "write-bytes", "w", "bytes to write to each file after it is created")
	fs.VarP(sizeValue{&o.ReadBytes}, "read-bytes", "e", "bytes to read from each file")
	integer(&o.Iterations, "iterations", "i", "number of iterations")
	integer(&o.Stride, "nstride", "N", "rank stride between create and the later phases (1 defeats the client cache)")
	fs.VarPF(randomValue{o}, "random", "R", "stat and read in a random order; =N also sets the seed").NoOptDefVal = randomNoSeed
	integer(&o.RandomSeed, "random-seed", "", "seed of -R (0: the time)")
	sw(&o.SharedFile, "shared-file", "S", "all ranks access one shared file (no directory phases)")
	sw(&o.Collective, "collective-creates", "c", "rank 0 creates and removes every rank's items")
	sw(&o.Mknod, "make-node", "k", "create files with mknod")
	sw(&o.Fsync, "sync-file", "y", "fsync each file after writing it")
	sw(&o.SyncPhases, "call-sync", "Y", "sync the file system after each phase (timed)")
	integer(&o.StonewallSeconds, "stonewall-timer", "W", "stop the file create phase after this many `seconds` (0: off)")
	text(&o.StonewallStatusFile, "stonewall-status-file", "x", "file carrying the stonewalled item count to later runs")
	sw(&o.VerifyRead, "verify-read", "X", "verify the data read")
	sw(&o.VerifyWrite, "verify-write", "", "read each file back after writing and verify it")
	integer(&o.DataSeed, "random-buffer-offset", "G", "offset (seed) of the data pattern (-1: the time)")
	fs.Var(packetValue{&o.DataPacketType}, "dataPacketType", "data: timestamp, offset, incompressible or random (t, o, i, r)")
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
	text(&o.SaveRankPerformanceDetails, "saveRankPerformanceDetails", "", "CSV `file` of every rank's rates and times")
	text(&o.SavePerOpDataCSV, "savePerOpDataCSV", "", "`prefix` of per-rank CSV files of every file operation")
	fs.VarPF(countValue{&o.Verbose}, "verbose", "v", "more output (repeat for more)").NoOptDefVal = "+1"
	integer(&o.Verbose, "verbosity", "V", "verbosity `level`")
	sw(&o.WarningAsErrors, "warningAsErrors", "", "fail on any warning")
	fs.Var(formatValue{&o.Format}, "format", "report format: human, json or csv (to stdout, or to --output)")
	text(&o.Output, "output", "", "write the --format report to this `file`; stdout then gets the human report")
	sw(&p.help, "help", "h", "print this help")
}

// parseArgs parses the command line into p.
func (p *parser) parseArgs(args []string) error {
	err := p.fs.Parse(args)
	if p.help {
		return ErrHelp
	}
	if err != nil {
		return p.flagError(err)
	}
	if rest := p.fs.Args(); len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q: mdtest options start with - (such as -n 100 or -d dir)", rest[0])
	}
	return nil
}

// finish returns the options: the backend resolved, every phase when none
// was asked for, and the --output format from its extension when --format
// was not given.
func (p *parser) finish() Options {
	o := p.o
	o.Dirs = append([]string(nil), o.Dirs...)
	if e, ok := p.reg.Lookup(o.API); ok {
		o.Backend = e
		o.BackendOptions = p.backends[e.Name]
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

// unsupportedShort names mdtest's short options that hpcbench refuses.
var unsupportedShort = map[byte]string{
	'B': "-B (no barriers) is not supported: mdtest 4's -B always aborts with the stone wall error, and phases need barriers to be timed",
	'g': "-g (Lustre global directory layout) is not supported by hpcbench",
}

// unsupportedLong names mdtest's long options that hpcbench refuses.
var unsupportedLong = map[string]string{
	"allocateBufferOnGPU": "GPU buffers", "GPUid": "GPU selection", "gpuDirect": "GPUDirect",
}

// flagError rewords pflag's errors as "flag: why".
func (p *parser) flagError(err error) error {
	var (
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
		notExist *pflag.NotExistError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &invalid):
		return fmt.Errorf("%s: %w", flagLabel(invalid.GetFlag()), invalid.Unwrap())
	case errors.As(err, &required):
		return fmt.Errorf("%s: needs a value", flagLabel(required.GetFlag()))
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if notExist.GetSpecifiedShortnames() != "" {
			c := name[0]
			if why, ok := unsupportedShort[c]; ok {
				return errors.New(why)
			}
			if c < 0x80 && unicode.IsDigit(rune(c)) {
				return fmt.Errorf("unknown option %q: a switch takes a number only as -X=N (a seed for -R: -R=%c or --random-seed=%c)", "-"+name, c, c)
			}
			return fmt.Errorf("unknown option %q", "-"+name)
		}
		if what, ok := unsupportedLong[name]; ok {
			return fmt.Errorf("--%s: mdtest's %s option is not supported by hpcbench", name, what)
		}
		if prefix, _, ok := strings.Cut(name, "."); ok {
			if _, known := p.reg.Lookup(prefix); !known {
				return fmt.Errorf("unknown option %q: no backend %q in this build (have %s)",
					"--"+name, prefix, strings.Join(p.reg.Names(), ", "))
			}
		}
		return fmt.Errorf("unknown option %q", "--"+name)
	case errors.As(err, &syntax):
		return fmt.Errorf("bad option syntax %q", syntax.GetSpecifiedFlag())
	}
	return err
}

// flagLabel names a flag as a user types it: -n, or --random-seed.
func flagLabel(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}
