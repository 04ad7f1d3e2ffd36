package imb

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/report"
)

// Usage is the one-line synopsis of hpcbench coll's command line.
const Usage = "hpcbench coll [-msglog MIN:MAX | -msglen FILE] [-iter N[,VOL]] [-time SECS] [-npmin P] " +
	"[-root R] [-root_shift on|off] [-sync on|off] [-check] [--interval DURATION] [--format human|json|csv] [--output FILE] " +
	"[--alg COLL=ALG,...] [--fabric auto|shm|tcp|verbs|ucx|ofi:PROVIDER] [BENCHMARK ...]"

// Args is what hpcbench coll's command line asks for: the engine's options
// (benchmarks included) and how to write the result.
type Args struct {
	// Options for Run; Env and Group are left for the caller to fill in.
	Options Options
	// Format is the output on stdout (--format, --json, --csv); human
	// means IMB's layout, report.WriteIMB.
	Format report.Format
	// Output is a file to also write the result to (--output), "" for none.
	Output string
	// Archive is a file to write the run's archive to (--archive): the
	// Result as report.WriteJSON writes it; "" for none.
	Archive string

	// formats records --format, --json and --csv as given, to refuse
	// two different choices.
	formats cliflag.OneOf
}

// NewArgs returns the arguments of an empty command line: IMB's defaults.
func NewArgs() Args {
	return Args{Options: NewOptions()}
}

// ParseArgs parses hpcbench coll's command line: IMB-MPI1's options in its
// single-dash spelling (-msglog 0:22, -msglen FILE, -iter 1000,40,
// -iter_policy dynamic, -time 10, -npmin 2, -root_shift off, -sync 1) or
// the double-dash one (--msglog=0:22), hpcbench's own (-root, -check,
// --format, --json, --csv, --output, --alg, --fabric), and benchmark names
// in any case, in any order, as IMB-MPI1 takes them. -msglen reads the file.
//
// It returns pflag.ErrHelp for -h, -help or --help, and otherwise a
// one-line error naming the flag and what it accepts. Callers that build
// their own pflag.FlagSet (to print usage) use NormalizeArgs, AddFlags and
// Finish, which is all ParseArgs does.
func ParseArgs(args []string) (Args, error) {
	a := NewArgs()
	norm, err := NormalizeArgs(args)
	if err != nil {
		return a, err
	}
	fs := pflag.NewFlagSet("coll", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	a.AddFlags(fs)
	if err := fs.Parse(norm); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return a, err
		}
		return a, errors.New(oneLine(err.Error()))
	}
	if err := a.Finish(fs.Args()); err != nil {
		return a, err
	}
	return a, nil
}

// AddFlags defines the flags of hpcbench coll on fs, bound to a.
func (a *Args) AddFlags(fs *pflag.FlagSet) {
	o := &a.Options
	fs.Var(msglogValue{o}, "msglog", "message sizes 0 and 2^MIN … 2^MAX bytes (or MAX alone)")
	fs.Var(msglenValue{o}, "msglen", "read message sizes from `FILE`, one per line (k, m suffixes; # comments)")
	fs.Var(iterValue{o}, "iter", "at most N repetitions per size, and at most VOL MiB moved per size")
	fs.StringVar(&o.IterPolicy, "iter_policy", o.IterPolicy, "dynamic (cut repetitions to fit -time) or off")
	fs.Var(secondsValue{&o.Time}, "time", "seconds each message size may take (dynamic policy)")
	fs.IntVar(&o.NPMin, "npmin", o.NPMin, "smallest process count; collectives run at P, 2P, 4P … and all ranks")
	fs.IntVar(&o.Root, "root", o.Root, "root rank of Bcast, Scatter, Gather and Reduce")
	cliflag.SetRange(fs, "npmin", "1 or more")
	cliflag.SetRange(fs, "root", "a rank, 0 or more")
	fs.Var(switchValue{&o.RootShift}, "root_shift", "move the root by one rank every repetition")
	fs.Var(switchValue{&o.Sync}, "sync", "barrier after every repetition of a collective, outside the timing")
	fs.BoolVar(&o.Check, "check", false, "verify every received and reduced buffer; exit 1 on a wrong result")
	fs.Var(distribution.IntervalValue{D: &o.Interval}, "interval", "length of an interval of the archive's series table (repetitions per second; default 1s, 1ms to 1h)")
	fs.Var(a.formats.Value("--format", &a.Format), "format", "output on stdout: human (IMB's layout), json or csv")
	fs.Var(a.formats.Implied("--json", report.FormatJSON.String(), &a.Format), "json", "same as --format json")
	fs.Lookup("json").NoOptDefVal = "true"
	fs.Var(a.formats.Implied("--csv", report.FormatCSV.String(), &a.Format), "csv", "same as --format csv")
	fs.Lookup("csv").NoOptDefVal = "true"
	fs.Var(cliflag.Path{P: &a.Output}, "output", "also write the result to `FILE`")
	fs.Var(cliflag.Path{P: &a.Archive}, "archive", "write the run as hpcbench's archive (JSON, schema hpcbench/1) to `FILE`")
	fs.StringVar(&o.Alg, "alg", "", "collective algorithms, such as allreduce=ring,bcast=binomial")
	fs.StringVar(&o.Fabric, "fabric", "", "transport: auto, shm, tcp, verbs (a build with -tags verbs on a host with an RDMA device), ucx (UCX's UCP, as installed) or ofi:PROVIDER (libfabric's: ofi:tcp, ofi:shm, ofi:udp, ofi:verbs;ofi_rxm)")
}

// Finish completes parsing once the flags are set: the positional
// arguments are benchmark names in any case; --format, --json and --csv
// must not choose two formats; then the options are validated.
func (a *Args) Finish(positional []string) error {
	for _, name := range positional {
		canon, err := CanonicalName(name)
		if err != nil {
			return errors.New(oneLine(err.Error()))
		}
		a.Options.Benchmarks = append(a.Options.Benchmarks, canon)
	}
	if err := a.formats.Err(); err != nil {
		return err
	}
	if err := a.Options.Validate(); err != nil {
		return errors.New(oneLine(err.Error()))
	}
	return nil
}

// flagArity reports whether hpcbench coll knows the long flag name and
// whether it takes a value.
func flagArity(name string) (takesValue, known bool) {
	switch name {
	case "msglog", "msglen", "iter", "iter_policy", "time", "npmin", "root", "root_shift", "sync",
		"interval", "format", "output", "alg", "fabric":
		return true, true
	case "check", "json", "csv", "help":
		return false, true
	}
	return false, false
}

// UnsupportedOptions returns the IMB-MPI1 options hpcbench coll does not
// implement, without their dash: NormalizeArgs refuses them with an error
// naming the option instead of pflag's "unknown flag".
func UnsupportedOptions() []string {
	return []string{"multi", "off_cache", "map", "mem", "input", "include", "exclude", "thread_level",
		"imb_barrier", "warm_up", "data_type", "red_data_type", "contig_type", "zero_size", "gpu_selection"}
}

// untilSteady is the flag ior and mdtest take and coll refuses.
const untilSteady = "until-steady"

// errUntilSteady says why coll has no --until-steady.
var errUntilSteady = errors.New("--until-steady: not for coll: IMB's repetitions per size are set by -iter and -time, and there is no throughput phase to stop early")

// NormalizeArgs rewrites IMB's single-dash long options into pflag's
// double-dash form with the value attached ("-msglog", "0:22" becomes
// "--msglog=0:22"), so that existing IMB command lines parse; it attaches
// the value of double-dash flags the same way, so a value may start with a
// dash. Everything after "--", single-letter options and positional
// arguments pass unchanged. An IMB option hpcbench does not implement is an
// error naming it.
func NormalizeArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		body, ok := strings.CutPrefix(a, "--")
		if !ok {
			if len(a) < 3 || a[0] != '-' {
				out = append(out, a)
				continue
			}
			body = a[1:]
		}
		name, _, hasValue := strings.Cut(body, "=")
		if name == untilSteady {
			return nil, errUntilSteady
		}
		takes, known := flagArity(name)
		if !known {
			if slices.Contains(UnsupportedOptions(), name) {
				return nil, fmt.Errorf("-%s: an IMB-MPI1 option that hpcbench coll does not support", oneLine(name))
			}
			out = append(out, a)
			continue
		}
		if takes && !hasValue && i+1 < len(args) {
			out = append(out, "--"+name+"="+args[i+1])
			i++
			continue
		}
		out = append(out, "--"+body)
	}
	return out, nil
}

// oneLine escapes control characters, so an error quoting what the user
// typed stays one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
