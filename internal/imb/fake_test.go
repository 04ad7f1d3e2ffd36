package imb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/fabric/pipe"
	"github.com/hpcbench/hpcbench/report"
)

// fakeWorld is an in-process job of n ranks, each a goroutine, whose
// communicator moves messages through unbounded per-pair mailboxes and
// implements the collectives naively over them. Time is virtual: every call
// adds cost(rank, op, bytes) seconds to the calling rank's clock, so tests
// choose what each rank measures.
type fakeWorld struct {
	n      int
	boxes  [2][][]*mailbox // [tag][src][dst]: tag 0 point-to-point, 1 collectives
	clocks []float64       // per job rank; written only by that rank's goroutine
	cost   func(rank int, op string, bytes int) float64
	// corrupt, when set, may change a rank's received buffer after op.
	corrupt func(rank int, op string, buf []byte)
	// rendezvous makes Send wait until the message is received, and
	// Sendrecv until its message is, as a transport without buffering
	// does for large messages; code that relies on buffering deadlocks.
	rendezvous bool
	calls      []map[string]int // per job rank: calls per op
	// dist, when set, holds every rank's real communicator for the
	// distributions' reduction (Options.distComm; see withDist).
	dist []*collectives.Comm

	mu   sync.Mutex
	subs map[int]*fakeWorld // sub-communicators by size; share clocks
}

// newFakeWorld makes a job of n ranks where every call is free.
func newFakeWorld(n int) *fakeWorld {
	w := &fakeWorld{n: n, clocks: make([]float64, n), subs: make(map[int]*fakeWorld),
		cost: func(int, string, int) float64 { return 0 }}
	w.calls = make([]map[string]int, n)
	for r := range w.calls {
		w.calls[r] = make(map[string]int)
	}
	w.boxes = newBoxes(n)
	return w
}

func newBoxes(n int) [2][][]*mailbox {
	var b [2][][]*mailbox
	for tag := range b {
		b[tag] = make([][]*mailbox, n)
		for s := range n {
			b[tag][s] = make([]*mailbox, n)
			for d := range n {
				b[tag][s][d] = &mailbox{notify: make(chan struct{}, 1)}
			}
		}
	}
	return b
}

// sub returns the communicator of the first n ranks, made once.
func (w *fakeWorld) sub(n int) *fakeWorld {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.subs[n]; ok {
		return s
	}
	s := &fakeWorld{n: n, clocks: w.clocks, cost: w.cost, corrupt: w.corrupt, calls: w.calls, rendezvous: w.rendezvous,
		boxes: newBoxes(n), subs: make(map[int]*fakeWorld)}
	w.subs[n] = s
	return s
}

// withDist gives every rank of w a real communicator over an in-process
// mesh for the distributions' reduction, closed when the test ends.
func (w *fakeWorld) withDist(t *testing.T) *fakeWorld {
	t.Helper()
	mesh := pipe.Mesh(w.n)
	w.dist = make([]*collectives.Comm, w.n)
	for r := range w.n {
		c, err := collectives.New(r, w.n, mesh[r], collectives.Options{})
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		w.dist[r] = c
		t.Cleanup(func() { c.Close() })
	}
	return w
}

// comm returns rank's communicator of the whole job.
func (w *fakeWorld) comm(rank int) *fakeComm { return &fakeComm{w: w, rank: rank} }

// group returns rank's GroupFunc.
func (w *fakeWorld) group(rank int) GroupFunc {
	return func(_ context.Context, n int) (Comm, error) {
		if rank >= n {
			return nil, nil
		}
		return w.sub(n).comm(rank), nil
	}
}

// clock returns rank's virtual clock.
func (w *fakeWorld) clock(rank int) func() float64 {
	return func() float64 { return w.clocks[rank] }
}

// mailbox is an unbounded FIFO with one reader.
type mailbox struct {
	mu     sync.Mutex
	q      []letter
	notify chan struct{}
}

// letter is a queued message and the channel closed when it is received.
type letter struct {
	b    []byte
	done chan struct{}
}

// put queues a copy of b and returns a channel closed once it is received.
func (m *mailbox) put(b []byte) <-chan struct{} {
	l := letter{b: append([]byte(nil), b...), done: make(chan struct{})}
	m.mu.Lock()
	m.q = append(m.q, l)
	m.mu.Unlock()
	select {
	case m.notify <- struct{}{}:
	default:
	}
	return l.done
}

func (m *mailbox) get(ctx context.Context) ([]byte, error) {
	for {
		m.mu.Lock()
		if len(m.q) > 0 {
			l := m.q[0]
			m.q = m.q[1:]
			m.mu.Unlock()
			close(l.done)
			return l.b, nil
		}
		m.mu.Unlock()
		select {
		case <-m.notify:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// fakeComm is one rank's view of a fakeWorld.
type fakeComm struct {
	w    *fakeWorld
	rank int
}

func (c *fakeComm) Rank() int { return c.rank }
func (c *fakeComm) Size() int { return c.w.n }

// done charges op's cost to the rank's clock and counts the call.
func (c *fakeComm) done(op string, n int, recv []byte) {
	c.w.clocks[c.rank] += c.w.cost(c.rank, op, n)
	c.w.calls[c.rank][fmt.Sprintf("%s/%d", op, c.w.n)]++
	if c.w.corrupt != nil && recv != nil {
		c.w.corrupt(c.rank, op, recv)
	}
}

func (c *fakeComm) send(tag, peer int, b []byte) error {
	_, err := c.post(tag, peer, b)
	return err
}

// post queues b for peer and returns the channel closed on its receipt.
func (c *fakeComm) post(tag, peer int, b []byte) (<-chan struct{}, error) {
	if peer < 0 || peer >= c.w.n {
		return nil, fmt.Errorf("fake: send to rank %d of %d", peer, c.w.n)
	}
	return c.w.boxes[tag][c.rank][peer].put(b), nil
}

// await waits for a posted message to be received when the world has
// rendezvous semantics.
func (c *fakeComm) await(ctx context.Context, done <-chan struct{}) error {
	if !c.w.rendezvous {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("fake: rendezvous send: %w", ctx.Err())
	}
}

func (c *fakeComm) recv(ctx context.Context, tag, peer int, b []byte) (int, error) {
	if peer < 0 || peer >= c.w.n {
		return 0, fmt.Errorf("fake: receive from rank %d of %d", peer, c.w.n)
	}
	m, err := c.w.boxes[tag][peer][c.rank].get(ctx)
	if err != nil {
		return 0, err
	}
	if len(m) > len(b) {
		return 0, fmt.Errorf("fake: message of %d bytes truncated to %d", len(m), len(b))
	}
	return copy(b, m), nil
}

func (c *fakeComm) Send(ctx context.Context, peer int, b []byte) error {
	done, err := c.post(0, peer, b)
	if err == nil {
		err = c.await(ctx, done)
	}
	c.done("send", len(b), nil)
	return err
}

func (c *fakeComm) Recv(ctx context.Context, peer int, b []byte) (int, error) {
	n, err := c.recv(ctx, 0, peer, b)
	c.done("recv", len(b), b)
	return n, err
}

func (c *fakeComm) Sendrecv(ctx context.Context, dst int, sb []byte, src int, rb []byte) (int, error) {
	done, err := c.post(0, dst, sb)
	if err != nil {
		return 0, err
	}
	n, err := c.recv(ctx, 0, src, rb)
	if err == nil {
		err = c.await(ctx, done)
	}
	c.done("sendrecv", len(sb), rb)
	return n, err
}

// bcast and gather are the building blocks of the fake collectives.
func (c *fakeComm) bcast(ctx context.Context, buf []byte, root int) error {
	if c.rank != root {
		_, err := c.recv(ctx, 1, root, buf)
		return err
	}
	for r := range c.w.n {
		if r != root {
			if err := c.send(1, r, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *fakeComm) gather(ctx context.Context, send, recv []byte, root int) error {
	if c.rank != root {
		return c.send(1, root, send)
	}
	l := len(send)
	for r := range c.w.n {
		if r == root {
			copy(recv[r*l:], send)
		} else if _, err := c.recv(ctx, 1, r, recv[r*l:(r+1)*l]); err != nil {
			return err
		}
	}
	return nil
}

func (c *fakeComm) Barrier(ctx context.Context) error {
	tok := []byte{1}
	err := c.gather(ctx, tok, make([]byte, c.w.n), 0)
	if err == nil {
		err = c.bcast(ctx, tok, 0)
	}
	c.done("barrier", 0, nil)
	return err
}

func (c *fakeComm) Bcast(ctx context.Context, buf []byte, root int) error {
	err := c.bcast(ctx, buf, root)
	var got []byte
	if c.rank != root {
		got = buf
	}
	c.done("bcast", len(buf), got)
	return err
}

func (c *fakeComm) Gather(ctx context.Context, send, recv []byte, root int) error {
	err := c.gather(ctx, send, recv, root)
	c.done("gather", len(send), recv)
	return err
}

func (c *fakeComm) Scatter(ctx context.Context, send, recv []byte, root int) error {
	var err error
	if c.rank == root {
		l := len(recv)
		for r := range c.w.n {
			if r == root {
				copy(recv, send[r*l:])
			} else if err = c.send(1, r, send[r*l:(r+1)*l]); err != nil {
				break
			}
		}
	} else {
		_, err = c.recv(ctx, 1, root, recv)
	}
	c.done("scatter", len(recv), recv)
	return err
}

func (c *fakeComm) Allgather(ctx context.Context, send, recv []byte) error {
	err := c.gather(ctx, send, recv, 0)
	if err == nil {
		err = c.bcast(ctx, recv, 0)
	}
	c.done("allgather", len(send), recv)
	return err
}

func (c *fakeComm) Alltoall(ctx context.Context, send, recv []byte) error {
	l := len(send) / c.w.n
	var err error
	for r := range c.w.n {
		if r != c.rank {
			if err = c.send(1, r, send[r*l:(r+1)*l]); err != nil {
				break
			}
		}
	}
	for r := range c.w.n {
		if err != nil {
			break
		}
		if r == c.rank {
			copy(recv[r*l:], send[r*l:(r+1)*l])
		} else {
			_, err = c.recv(ctx, 1, r, recv[r*l:(r+1)*l])
		}
	}
	c.done("alltoall", l, recv)
	return err
}

// reduce sums float32 elements of every rank's send at root.
func (c *fakeComm) reduce(ctx context.Context, send, recv []byte, dt Datatype, op Op, root int) error {
	if dt != Float32 || op != Sum {
		return fmt.Errorf("fake: reduction %v %v not supported", dt, op)
	}
	all := make([]byte, len(send)*c.w.n)
	if err := c.gather(ctx, send, all, root); err != nil || c.rank != root {
		return err
	}
	for e := 0; e+4 <= len(send); e += 4 {
		var sum float32
		for r := range c.w.n {
			sum += math.Float32frombits(binary.LittleEndian.Uint32(all[r*len(send)+e:]))
		}
		binary.LittleEndian.PutUint32(recv[e:], math.Float32bits(sum))
	}
	return nil
}

func (c *fakeComm) Reduce(ctx context.Context, send, recv []byte, dt Datatype, op Op, root int) error {
	err := c.reduce(ctx, send, recv, dt, op, root)
	var got []byte
	if c.rank == root {
		got = recv
	}
	c.done("reduce", len(send), got)
	return err
}

func (c *fakeComm) Allreduce(ctx context.Context, send, recv []byte, dt Datatype, op Op) error {
	err := c.reduce(ctx, send, recv, dt, op, 0)
	if err == nil {
		err = c.bcast(ctx, recv, 0)
	}
	c.done("allreduce", len(send), recv)
	return err
}

// fixedStamp is the wall clock of fake runs.
func fixedStamp() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// jobResult is what runJob returns: rank 0's result and every rank's error.
type jobResult struct {
	res  *report.Result
	errs []error
}

// runJob runs the engine on every rank of w with options o (each rank gets
// its own copy; withGroup gives each a GroupFunc) under a deadline.
func runJob(t *testing.T, w *fakeWorld, o Options, withGroup bool) jobResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := jobResult{errs: make([]error, w.n)}
	var wg sync.WaitGroup
	for r := range w.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ro := o
			if withGroup {
				ro.Group = w.group(r)
			}
			if w.dist != nil {
				ro.distComm = w.dist[r]
			}
			res, err := run(ctx, w.comm(r), &ro, w.clock(r), fixedStamp)
			out.errs[r] = err
			if r == 0 {
				out.res = res
			} else if res != nil {
				out.errs[r] = fmt.Errorf("rank %d got a result", r)
			}
		}()
	}
	wg.Wait()
	return out
}

// okJob runs runJob and fails the test on any rank's error.
func okJob(t *testing.T, w *fakeWorld, o Options, withGroup bool) *report.Result {
	t.Helper()
	out := runJob(t, w, o, withGroup)
	for r, err := range out.errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if out.res == nil {
		t.Fatal("rank 0 returned no result")
	}
	return out.res
}

// table returns the named table of r, failing the test when missing.
func table(t *testing.T, r *report.Result, name string) *report.Table {
	t.Helper()
	for i := range r.Tables {
		if r.Tables[i].Name == name {
			return &r.Tables[i]
		}
	}
	var names []string
	for _, tb := range r.Tables {
		names = append(names, tb.Name)
	}
	t.Fatalf("no table %q; have %q", name, names)
	return nil
}

// metric returns the value of the named metric column in row.
func metric(t *testing.T, tb *report.Table, row int, name string) float64 {
	t.Helper()
	i := 0
	for _, c := range tb.Columns {
		if c.Kind != report.KindMetric {
			continue
		}
		if c.Name == name {
			return tb.Rows[row].Metrics[i]
		}
		i++
	}
	t.Fatalf("table %q has no metric %q", tb.Name, name)
	return 0
}
