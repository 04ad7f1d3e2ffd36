package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/fabtest"
	"github.com/hpcbench/hpcbench/internal/job"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

const fabricUsage = "hpcbench fabric pingpong|bw|rma_bw|rma_pingpong|allpairs|info [-p tcp|shm|verbs] [-d DEVICE] [-S SIZE[,SIZE...]|all] [--max-size SIZE] [-I ITERS] [-W WINDOW] [-w WARMUP] [-D SECONDS [--report-interval D]] [-c] [-B PORT] [-P PORT] [--timeout D] [--accept-timeout D] [--format human|json|csv] [--output FILE] [--archive FILE] [HOST]"

// The roles of an end, for the run record.
const (
	roleServer   = "server"
	roleClient   = "client"
	roleLaunched = "launched"
)

func runFabric(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		return usagef("fabric: want a test: %s, allpairs or info (hpcbench fabric --help)", strings.Join(fabtest.Tests(), ", "))
	}
	sub := args[0]
	switch {
	case isHelp(sub):
		writeHelp(stdout, "fabric", fabricUsage, "Options:\n"+fabricOptionsHelp())
		return nil
	case sub == "info":
		return runFabricInfo(ctx, stdout, args[1:])
	case sub == "allpairs":
		return runAllpairs(ctx, stdout, stderr, args[1:])
	}
	fa, err := parseFabric(sub, args[1:], stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	// One thread of computation per end, as coll's ranks (see runColl):
	// a transport's busy-wait then hands the CPU to the goroutine it
	// waits for at once. GOMAXPROCS in the environment still decides.
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	role := roleServer
	switch {
	case fa.host != "":
		role = roleClient
	case pipeline.PMIKind(nil) != "singleton":
		role = roleLaunched
	}
	spec := pipeline.Spec{
		Name: "fabric", Args: args, Stdout: stdout, Stderr: stderr,
		Archive: fa.archive, ArchiveFlag: "--archive", Outputs: optionalOutput("--output", fa.output),
		Usage: isUsage,
		Render: func(res *report.Result) error {
			return renderFabric(stdout, res, fa.format, fa.output)
		},
	}
	if role == roleLaunched {
		tr, err := fa.transport(nil)
		if err != nil {
			return usagef("fabric: %v", err)
		}
		spec.Job = job.Options{Fabric: tr.Name(), Transports: fabric.Registry{tr}}
	} else {
		spec.NoJob = true
	}
	spec.Engine = func(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
		out, err := fa.run(ctx, e, role)
		if out.Rows == nil && err != nil {
			return nil, err
		}
		if role == roleLaunched && e.Job.PMI.Rank() != 0 {
			return nil, err
		}
		res := fabtest.Result(out.Options, out.Rows)
		res.Run = e.Record.BaseRun()
		res.Run.Benchmark = report.BenchmarkFabric + out.Options.Test
		res.Run.Env[report.FabEnvTest] = out.Options.Test
		res.Run.Env[report.FabEnvRole] = role
		res.Run.Env[report.FabEnvProv] = fa.provider
		if fa.peer != "" {
			res.Run.Env["peer"] = fa.peer
		}
		return res, err
	}
	spec.Soft = fabtest.ErrCheck
	return pipeline.Main(ctx, spec)
}

// run connects this end to the other and runs the test.
func (fa *fabricArgs) run(ctx context.Context, e *pipeline.Env, role string) (fabtest.Outcome, error) {
	p := fabtest.Peer{Timeout: fa.timeout}
	total := int64(len(fa.opts.Sizes))
	var done int64
	p.OnSize = func(r fabtest.Row) {
		done++
		e.Phase(fmt.Sprintf("%s %d B", fa.opts.Test, r.Size), 0, done, total)
	}
	if fa.format == report.FormatText && fa.opts.Duration > 0 {
		p.OnInterval = func(size, i int, mbps float64) {
			fmt.Fprintf(e.Stdout, "# %d bytes, interval %d: %.2f MB/sec\n", size, i+1, mbps)
		}
	}
	switch role {
	case roleLaunched:
		c := e.Job.Comm
		if c.Size() != 2 {
			return fabtest.Outcome{}, usagef("fabric %s: runs on 2 ranks, the job has %d (hpcbench fabric allpairs measures every pair)", fa.opts.Test, c.Size())
		}
		rank := c.Rank()
		p.Link = fabtest.CommLink{Comm: c, Peer: 1 - rank}
		p.Initiator = rank == 0
		p.Name = fmt.Sprintf("rank %d", 1-rank)
		p.Alloc, p.Free = c.Alloc, c.Free
		if fabtest.IsRMA(fa.opts.Test) {
			r, err := e.Job.RMA(ctx, 1-rank)
			if err != nil {
				return fabtest.Outcome{}, err
			}
			p.RMA = r
		}
	case roleServer:
		actx, cancel := withTimeoutCause(ctx, fa.acceptTimeout, fmt.Errorf("no client within %v (--accept-timeout)", fa.acceptTimeout))
		defer cancel()
		conn, peer, err := fabtest.Accept(actx, fmt.Sprintf(":%d", fa.srcPort), fa.opts.Test, fa.provider, fa.transport, fa.timeout)
		if err != nil {
			return fabtest.Outcome{}, err
		}
		defer conn.Close()
		fa.peer = peer
		p.Link = fabtest.ConnLink{Conn: conn, Tag: 1}
		p.RMA, _ = conn.(fabric.RMAConn)
		p.Name = "client " + peer
		p.Alloc, p.Free = fa.alloc()
	default:
		server := fabtest.HostPort(fa.host, fa.dstPort)
		conn, err := fabtest.Connect(ctx, server, fa.clientSrcPort, fa.opts.Test, fa.provider, fa.transport, fa.timeout)
		if err != nil {
			return fabtest.Outcome{}, err
		}
		defer conn.Close()
		fa.peer = server
		p.Link = fabtest.ConnLink{Conn: conn, Tag: 1}
		p.RMA, _ = conn.(fabric.RMAConn)
		p.Initiator = true
		p.Name = "server " + server
		p.Alloc, p.Free = fa.alloc()
	}
	o := fa.opts
	if !p.Initiator {
		o = fabtest.Options{Test: fa.opts.Test}
	}
	out, err := fabtest.Run(ctx, p, o)
	if role == roleServer && len(fa.planFlags) > 0 && err == nil && !samePlan(out.Options, fa.opts) {
		// fabtests' servers need the client's options; ours follows the
		// client's plan, and says so when it was given other ones.
		fmt.Fprintf(e.Stderr, "hpcbench: fabric %s: ran the client's plan; this server's %s differ(s) from it\n", fa.opts.Test, strings.Join(fa.planFlags, ", "))
	}
	return out, err
}

// samePlan reports whether two plans run the same measurements.
func samePlan(a, b fabtest.Options) bool {
	return slices.Equal(a.Sizes, b.Sizes) && a.Iters == b.Iters && a.Warmup == b.Warmup && a.Window == b.Window &&
		a.Duration == b.Duration && (a.Duration == 0 || a.Interval == b.Interval) && a.Check == b.Check
}

// withTimeoutCause is context.WithTimeoutCause, without a limit for d <= 0.
func withTimeoutCause(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, cause)
}

// renderFabric writes rank 0's views: the table in the format asked for,
// and the --output file.
func renderFabric(stdout io.Writer, res *report.Result, format report.Format, output string) error {
	if output != "" {
		f := report.FormatJSON
		if strings.HasSuffix(output, ".csv") {
			f = report.FormatCSV
		}
		if err := writeFileAtomic(output, func(w io.Writer) error { return report.Write(w, res, f) }); err != nil {
			return err
		}
	}
	if format == report.FormatText {
		return report.Render(stdout, res, report.ViewHuman)
	}
	return report.Write(stdout, res, format)
}
