package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/fabtest"
	"github.com/hpcbench/hpcbench/internal/transport"
	"github.com/hpcbench/hpcbench/internal/units"
	"github.com/hpcbench/hpcbench/report"
)

// Defaults of fabric's own options.
const (
	fabricDefaultTimeout       = time.Minute
	fabricDefaultAcceptTimeout = 10 * time.Minute
)

// fabricArgs is what a fabric test's command line asks for.
type fabricArgs struct {
	opts          fabtest.Options
	provider      string
	device        string
	host          string // the server to connect to; "" for a server or a launched rank
	srcPort       int    // -B: the server's control port
	clientSrcPort int    // -B on a client: its source port (0: any)
	dstPort       int    // -P: the server's control port, on a client
	timeout       time.Duration
	acceptTimeout time.Duration
	format        report.Format
	output        string
	archive       string

	endpoint  string // -e: msg; with -p ofi:PROVIDER, rdm (its default)
	eventMode bool   // --event: verbs' completion channel
	gid       int    // -g: verbs' GID index, verbs.AutoGID for the transport's choice
	inline    int    // --inline: verbs' largest inline send, -1 for its default

	planFlags []string // the plan's options given on this command line, for a server's note

}

// secondsValue is -D: whole or fractional seconds, as perftest's, or a
// Go duration ("90s", "2m").
type secondsValue struct{ d *time.Duration }

func (v secondsValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return v.d.String()
}

func (v secondsValue) Set(s string) error {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f > 1e6 {
			return fmt.Errorf("%s: must be 0 to 1000000 seconds", s)
		}
		*v.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%s: want seconds (10, 0.5) or a duration (90s)", s)
	}
	*v.d = d
	return nil
}

func (secondsValue) Type() string { return "seconds" }

// fabricFlags returns the flag set of the tests, bound to fa, and the
// strings that need parsing after it.
func fabricFlags(fa *fabricArgs, sizes *string, maxSize *int64, formats *cliflag.OneOf) *pflag.FlagSet {
	fs := newFlagSet("fabric")
	fs.StringVarP(&fa.provider, "provider", "p", "tcp", "the transport: tcp, shm (processes of one host), verbs (RDMA; a build with -tags verbs), ucx (UCX's UCP, as installed; UCX_TLS and the other UCX_* variables apply) or ofi:PROVIDER (libfabric's: ofi:tcp, ofi:shm, ofi:udp, ofi:verbs;ofi_rxm)")
	fs.StringVarP(&fa.device, "device", "d", "", "tcp: the interface or local IP address to use; verbs: the RDMA device (default: the first active one); ucx: UCX_NET_DEVICES; ofi: the libfabric domain (fabric info -p ofi lists them)")
	fs.StringVarP(&fa.endpoint, "endpoint", "e", "msg", "the endpoint type: msg (reliable connections, fabtests' -e msg); with -p ofi:PROVIDER, rdm (reliable datagrams, its default) or msg (libfabric's connected endpoints, where the provider has them: ofi:tcp)")
	fs.BoolVar(&fa.eventMode, "event", false, "verbs: sleep in the completion channel instead of busy-polling the CQ (perftest's -e)")
	fs.IntVarP(&fa.gid, "gid-index", "g", verbs.AutoGID, "verbs: the GID index to route by (RoCE; default: a RoCE v2 IPv4 GID, or the LID on InfiniBand)")
	fs.IntVar(&fa.inline, "inline", -1, "verbs: the largest send posted inline, in bytes")
	fs.Lookup("inline").DefValue = strconv.Itoa(verbs.DefaultInline) // what -1 stands for
	fs.StringVarP(sizes, "size", "S", "", "transfer sizes: SIZE (64, 4k, 1m), a comma-separated list, or all (powers of two from 1 B to --max-size); default 64,256,1k,4k,64k,1m")
	*maxSize = fabtest.DefaultMaxSize
	fs.Var((*units.SizeFlag)(maxSize), "max-size", "the largest size of -S all, 1 to 1g")
	fs.Int64VarP(&fa.opts.Iters, "iterations", "I", 0, "timed iterations per size (default: 10000 below 64 KiB, 1000 below 1 MiB, 100 above, twice that for bw)")
	fs.IntVarP(&fa.opts.Window, "window", "W", fabtest.DefaultWindow, "bw: messages sent per acknowledgement")
	fs.Int64VarP(&fa.opts.Warmup, "warmup", "w", fabtest.DefaultWarmup, "untimed iterations before each size")
	fs.VarP(secondsValue{&fa.opts.Duration}, "duration", "D", "time each size for this long (seconds, as perftest's -D) instead of -I iterations")
	fs.DurationVar(&fa.opts.Interval, "report-interval", fabtest.DefaultInterval, "with -D: report the bandwidth of every interval this long, and the least of them")
	fs.BoolVarP(&fa.opts.Check, "check", "c", false, "check every received message's bytes (fi_pingpong's -c)")
	fs.IntVarP(&fa.srcPort, "src-port", "B", fabtest.DefaultPort, "server: the control port to listen on; client: the source port of its control connection (when given)")
	fs.IntVarP(&fa.dstPort, "dst-port", "P", fabtest.DefaultPort, "client: the server's control port")
	fs.DurationVar(&fa.timeout, "timeout", fabricDefaultTimeout, "fail when the other end sends nothing for this long, or a connection step takes longer (0: no limit)")
	fs.DurationVar(&fa.acceptTimeout, "accept-timeout", fabricDefaultAcceptTimeout, "server: fail when no client connects within this long (0: wait for ever)")
	addResultFlags(fs, formats, &fa.format, &fa.output, &fa.archive, "human (fi_pingpong's table)")
	for name, accepted := range map[string]string{"gid-index": "0 to 65536", "inline": "0 to 65536",
		"iterations": fmt.Sprintf("1 to %d", int64(fabtest.MaxIters)), "warmup": fmt.Sprintf("0 to %d", int64(fabtest.MaxIters)),
		"window": "1 to 1048576", "src-port": "a port, 1 to 65535", "dst-port": "a port, 1 to 65535"} {
		cliflag.SetRange(fs, name, accepted)
	}
	return fs
}

// fabricOptionsHelp is the options part of fabric's help.
func fabricOptionsHelp() string {
	var fa fabricArgs
	var s string
	var m int64
	var f cliflag.OneOf
	return cliflag.Usages(fabricFlags(&fa, &s, &m, &f))
}

// parseFabric parses and validates the command line of test.
func parseFabric(test string, args []string, stdout io.Writer) (*fabricArgs, error) {
	if !slices.Contains(fabtest.Tests(), test) {
		return nil, usagef("fabric: unknown test %q: want one of %s, allpairs, info", oneLine(test), strings.Join(fabtest.Tests(), ", "))
	}
	fa := &fabricArgs{opts: fabtest.DefaultOptions(test)}
	var sizes string
	var maxSize int64
	var formats cliflag.OneOf
	fs := fabricFlags(fa, &sizes, &maxSize, &formats)
	fs.Init("fabric "+test, pflag.ContinueOnError)
	if err := parseFlags(fs, args, stdout, fabricUsage); err != nil {
		return nil, err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		fa.host = fs.Arg(0)
	default:
		return nil, usagef("fabric %s: one server HOST at most, got %q", test, strings.Join(fs.Args(), " "))
	}
	if err := formats.Err(); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	if fa.host != "" && fs.Changed("src-port") {
		fa.clientSrcPort, fa.srcPort = fa.srcPort, fabtest.DefaultPort
	}
	for _, p := range []struct {
		flag string
		v    int
	}{{"-B", fa.srcPort}, {"-B", fa.clientSrcPort}, {"-P", fa.dstPort}} {
		if p.v < 0 || p.v > 65535 {
			return nil, usagef("fabric %s: %s %d: must be a port, 1 to 65535", test, p.flag, p.v)
		}
	}
	if fa.srcPort == 0 && fa.host == "" {
		return nil, usagef("fabric %s: -B 0: the server's control port must be 1 to 65535", test)
	}
	if maxSize < 1 || maxSize > fabtest.MaxSize {
		return nil, usagef("fabric %s: --max-size %s: must be 1 to 1g", test, units.FormatFlag(maxSize))
	}
	if fs.Changed("size") && sizes == "" {
		return nil, usagef(`fabric %s: -S "": want sizes of 0 to 1g (64, 4k, 1m), a comma-separated list, or all`, test)
	}
	var err error
	if fa.opts.Sizes, err = parseFabricSizes(sizes, int(maxSize)); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	if fs.Changed("iterations") && fa.opts.Iters < 1 {
		return nil, usagef("fabric %s: -I %d: must be 1 to %d", test, fa.opts.Iters, int64(fabtest.MaxIters))
	}
	if fs.Changed("report-interval") && fa.opts.Duration == 0 {
		return nil, usagef("fabric %s: --report-interval needs -D", test)
	}
	if fa.timeout < 0 || fa.acceptTimeout < 0 {
		return nil, usagef("fabric %s: --timeout and --accept-timeout must not be negative", test)
	}
	if err := fa.opts.Validate(); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	if err := transport.CheckProvider(fa.provider, fa.device); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	if err := fa.checkEndpoint(fs.Changed("endpoint")); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	if fa.provider != "verbs" && (fs.Changed("gid-index") || fs.Changed("inline") || fs.Changed("event")) {
		return nil, usagef("fabric %s: -g, --inline and --event are verbs' options: -p %s has none of them", test, fa.provider)
	}
	fa.planFlags = changedOf(fs, "size", "max-size", "iterations", "window", "warmup", "duration", "report-interval", "check")
	if fa.inline < -1 || fa.inline > 1<<16 || fa.gid < verbs.AutoGID || fa.gid > 1<<16 {
		return nil, usagef("fabric %s: --inline must be 0 to 65536 and -g 0 to 65536", test)
	}
	if err := fabtest.CheckMemory(fa.opts.Sizes); err != nil {
		return nil, usagef("fabric %s: %v", test, err)
	}
	return fa, nil
}

// parseFabricSizes reads -S.
func parseFabricSizes(s string, max int) ([]int, error) {
	switch s {
	case "":
		return fabtest.DefaultSizes(), nil
	case "all":
		return fabtest.AllSizes(max), nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := units.ParseSize(strings.TrimSpace(f))
		if err != nil || n < 0 || n > fabtest.MaxSize {
			return nil, fmt.Errorf("-S %q: want sizes of 0 to 1g (64, 4k, 1m), a comma-separated list, or all", s)
		}
		out = append(out, int(n))
	}
	return out, nil
}

// changedOf returns those of names that the command line set, spelt -X
// when they have a shorthand, else --name.
func changedOf(fs *pflag.FlagSet, names ...string) []string {
	var out []string
	for _, n := range names {
		if !fs.Changed(n) {
			continue
		}
		if f := fs.Lookup(n); f.Shorthand != "" {
			out = append(out, "-"+f.Shorthand)
		} else {
			out = append(out, "--"+n)
		}
	}
	return out
}

// checkEndpoint checks -e against the provider: msg for hpcbench's own
// transports; rdm (the default when -e is not given) or msg for
// libfabric's, when the provider offers that endpoint type here.
func (fa *fabricArgs) checkEndpoint(given bool) error {
	if p, isOFI, _ := ofi.ParseProvider(fa.provider); isOFI {
		if !given {
			fa.endpoint = ofi.EndpointRDM
		}
		if err := (ofi.Options{Provider: "x", Endpoint: fa.endpoint}).Validate(); err != nil {
			return err
		}
		return ofi.CheckEndpoint(p, fa.endpoint)
	}
	if fa.endpoint != "msg" {
		return fmt.Errorf("-e %s: -p %s has one endpoint type, msg (reliable, connected); rdm is -p ofi:PROVIDER's", fa.endpoint, fa.provider)
	}
	return nil
}
