package fabtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/internal/transport"
	"github.com/hpcbench/hpcbench/pmi"
	"github.com/hpcbench/hpcbench/report"
)

// The roles of an end, for the run record.
const (
	RoleServer   = "server"
	RoleClient   = "client"
	RoleLaunched = "launched"
)

// Benchmark is one of hpcbench fabric's two-ended tests (pingpong, bw,
// rma_bw, rma_pingpong) as the run pipeline runs it (pipeline.Engine): a
// server and a client that find each other over a control connection, as
// fabtests' do, or two ranks of a launched job.
type Benchmark struct {
	// Options is the plan the client (or rank 0) runs.
	Options Options
	// Transport is -p, -d and verbs' options.
	Transport transport.Options
	// Host is the server a client connects to, "" for a server or a
	// launched rank.
	Host string
	// SrcPort is -B: a server's control port, a client's source port
	// (0: any); DstPort is -P, the server's control port on a client.
	SrcPort, DstPort int
	// Timeout fails a test whose partner sends nothing for this long;
	// AcceptTimeout a server that no client reaches.
	Timeout, AcceptTimeout time.Duration
	// PlanFlags are the plan's options given on this command line, for a
	// server's note when it runs the client's plan instead.
	PlanFlags []string
	// Format is stdout's format, Output the --output file, Archive the
	// --archive file.
	Format          report.Format
	Output, Archive string
	// Args is the command line, for the run record.
	Args []string
	// Stdout gets the table and -D's intervals.
	Stdout io.Writer

	role string           // RoleServer, RoleClient or RoleLaunched
	peer string           // who the other end was, for the run record
	tr   fabric.Transport // the transport in use, once opened
}

// Role is this end's role: a client with Host, a launched rank under a
// launcher, else a server.
func (b *Benchmark) Role() string {
	switch {
	case b.Host != "":
		return RoleClient
	case pmi.Kind(nil) != pmi.KindSingleton:
		return RoleLaunched
	}
	return RoleServer
}

// Open finds this end's role and, for a launched rank, opens the
// transport -p names, which the job then connects over: a transport the
// host cannot open is bad input, said before the job.
func (b *Benchmark) Open() error {
	b.role = b.Role()
	if b.role != RoleLaunched {
		return nil
	}
	_, err := b.transport(nil)
	return err
}

// Plan returns what the test needs: under a launcher, a job over the one
// transport Open opened; else none (the ends connect by themselves).
func (b *Benchmark) Plan() pipeline.Plan {
	if b.role == "" {
		b.role = b.Role()
	}
	p := pipeline.Plan{
		Name: "fabric", Args: b.Args, Soft: ErrCheck,
		Archive: b.Archive, ArchiveFlag: "--archive", Outputs: pipeline.OptionalOutput("--output", b.Output),
	}
	if b.role != RoleLaunched || b.tr == nil {
		p.NoJob = true
		return p
	}
	p.Transports, p.Fabric = fabric.Registry{b.tr}, b.tr.Name()
	return p
}

// Run connects this end to the other and runs the test.
func (b *Benchmark) Run(ctx context.Context, e *pipeline.Env) (*report.Result, error) {
	out, err := b.run(ctx, e)
	if out.Rows == nil && err != nil {
		return nil, err
	}
	if b.role == RoleLaunched && e.Job.PMI.Rank() != 0 {
		return nil, err
	}
	res := Result(out.Options, out.Rows)
	res.Run = e.Record.BaseRun()
	res.Run.Benchmark = report.BenchmarkFabric + out.Options.Test
	res.Run.Env[report.FabEnvTest] = out.Options.Test
	res.Run.Env[report.FabEnvRole] = b.role
	res.Run.Env[report.FabEnvProv] = b.Transport.Provider
	if b.peer != "" {
		res.Run.Env["peer"] = b.peer
	}
	return res, err
}

// run connects this end to the other and runs the test.
func (b *Benchmark) run(ctx context.Context, e *pipeline.Env) (Outcome, error) {
	if b.role == RoleLaunched && e.Job == nil {
		return Outcome{}, fmt.Errorf("fabric %s: a launched rank without a job: Benchmark.Open was not called", b.Options.Test)
	}
	p := Peer{Timeout: b.Timeout}
	total := int64(len(b.Options.Sizes))
	var done int64
	p.OnSize = func(r Row) {
		done++
		e.Phase(fmt.Sprintf("%s %d B", b.Options.Test, r.Size), 0, done, total)
	}
	if b.Format == report.FormatText && b.Options.Duration > 0 {
		p.OnInterval = func(size, i int, mbps float64) {
			fmt.Fprintf(e.Stdout, "# %d bytes, interval %d: %.2f MB/sec\n", size, i+1, mbps)
		}
	}
	if b.role != RoleLaunched {
		// Closed after the connection (defers run last first): the
		// launched rank's transport is the job's, which the pipeline closes.
		defer b.closeTransport()
	}
	switch b.role {
	case RoleLaunched:
		c := e.Job.Comm
		if c.Size() != 2 {
			return Outcome{}, pipeline.Usagef("fabric %s: runs on 2 ranks, the job has %d (hpcbench fabric allpairs measures every pair)", b.Options.Test, c.Size())
		}
		rank := c.Rank()
		p.Link = CommLink{Comm: c, Peer: 1 - rank}
		p.Initiator = rank == 0
		p.Name = fmt.Sprintf("rank %d", 1-rank)
		p.Alloc, p.Free = c.Alloc, c.Free
		if IsRMA(b.Options.Test) {
			r, err := e.Job.RMA(ctx, 1-rank)
			if err != nil {
				return Outcome{}, err
			}
			p.RMA = r
		}
	case RoleServer:
		actx, cancel := withTimeoutCause(ctx, b.AcceptTimeout, fmt.Errorf("no client within %v (--accept-timeout)", b.AcceptTimeout))
		defer cancel()
		conn, peer, err := Accept(actx, fmt.Sprintf(":%d", b.SrcPort), b.Options.Test, b.Transport.Provider, b.transport, b.Timeout)
		if err != nil {
			return Outcome{}, err
		}
		defer conn.Close()
		b.peer = peer
		p.Link = ConnLink{Conn: conn, Tag: 1}
		p.RMA, _ = conn.(fabric.RMAConn)
		p.Name = "client " + peer
		p.Alloc, p.Free = b.alloc()
	default:
		server := HostPort(b.Host, b.DstPort)
		conn, err := Connect(ctx, server, b.SrcPort, b.Options.Test, b.Transport.Provider, b.transport, b.Timeout)
		if err != nil {
			return Outcome{}, err
		}
		defer conn.Close()
		b.peer = server
		p.Link = ConnLink{Conn: conn, Tag: 1}
		p.RMA, _ = conn.(fabric.RMAConn)
		p.Initiator = true
		p.Name = "server " + server
		p.Alloc, p.Free = b.alloc()
	}
	o := b.Options
	if !p.Initiator {
		o = Options{Test: b.Options.Test}
	}
	out, err := Run(ctx, p, o)
	if b.role == RoleServer && len(b.PlanFlags) > 0 && err == nil && !samePlan(out.Options, b.Options) {
		// fabtests' servers need the client's options; ours follows the
		// client's plan, and says so when it was given other ones.
		fmt.Fprintf(e.Stderr, "hpcbench: fabric %s: ran the client's plan; this server's %s differ(s) from it\n", b.Options.Test, strings.Join(b.PlanFlags, ", "))
	}
	return out, err
}

// transport opens the run's transport (once); local is the address of
// the control connection in server/client mode (nil when launched).
func (b *Benchmark) transport(local net.IP) (fabric.Transport, error) {
	if b.tr != nil {
		return b.tr, nil
	}
	tr, err := transport.Open(b.Transport, local)
	if err != nil {
		return nil, err
	}
	b.tr = tr
	return tr, nil
}

// closeTransport closes the transport Open opened when it holds anything
// beyond the process (fabric/ofi's endpoint).
func (b *Benchmark) closeTransport() {
	if c, ok := b.tr.(io.Closer); ok {
		_ = c.Close()
	}
}

// alloc returns the transport's buffer allocator, if it has one.
func (b *Benchmark) alloc() (func(int) []byte, func([]byte)) {
	if a, ok := b.tr.(fabric.Allocator); ok {
		return a.Alloc, a.Free
	}
	return nil, nil
}

// Render writes res: the --output file, and the table in stdout's format.
func (b *Benchmark) Render(res *report.Result) error {
	return render(b.Stdout, res, b.Format, b.Output)
}

// render writes rank 0's views: the --output file, and the table in the
// format asked for.
func render(stdout io.Writer, res *report.Result, format report.Format, output string) error {
	if err := pipeline.WriteOutput(output, res); err != nil {
		return err
	}
	if format == report.FormatText {
		return report.Render(stdout, res, report.ViewHuman)
	}
	return report.Write(stdout, res, format)
}

// samePlan reports whether two plans run the same measurements.
func samePlan(a, b Options) bool {
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
