package fabtest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// Peer is one end of a test.
type Peer struct {
	// Link reaches the other end.
	Link Link
	// Initiator is true on the end that plans, sends first and times (the
	// client, or rank 0); the other end follows the plan it is sent.
	Initiator bool
	// RMA is Link's one-sided side, for the RMA tests; nil without.
	RMA fabric.RMAConn
	// Name says who the other end is, for errors ("rank 1", "server
	// 10.0.0.2:47592").
	Name string
	// Alloc, when not nil, gives the message buffers (a transport's own
	// memory moves messages faster); Free gives them back.
	Alloc func(n int) []byte
	Free  func(b []byte)
	// Timeout is the longest the test waits for the other end to make
	// progress before it fails, naming it; 0 means no limit.
	Timeout time.Duration
	// OnInterval, when not nil, is told every reporting interval's
	// bandwidth (10^6 B/s) of duration mode, on the initiator, as it ends.
	OnInterval func(size int, i int, mbps float64)
	// OnSize, when not nil, is told each size's row as it ends, on the
	// initiator.
	OnSize func(r Row)
}

// ErrCheck is wrapped by the error of a run whose data check found
// messages that did not hold what was sent; its rows are still returned.
var ErrCheck = errors.New("data check failed")

// errNotJSON is wrapped by recvJSON's error for a message that does not
// decode.
var errNotJSON = errors.New("not the message expected")

// maxPlan bounds the plan and result messages.
const maxPlan = 1 << 20

// planMsg is what the initiator sends first; reply is the responder's
// answer: empty, or why it refuses the plan.
type planMsg struct {
	Options
}

// Outcome is what a run returns on both ends: the plan it ran and its
// rows.
type Outcome struct {
	Options Options
	Rows    []Row
}

// Run runs the test on this end: the initiator sends o as the plan, the
// responder receives it (its own o says only which test it expects), then
// every size runs, and the initiator sends the rows, so both ends return
// the same outcome. The error names the other end when it stops answering
// or goes away; with ErrCheck the rows are still there.
func Run(ctx context.Context, p Peer, o Options) (Outcome, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &runner{p: p, ctx: ctx}
	var wg sync.WaitGroup
	if p.Timeout > 0 {
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.watch(stop, cancel)
		}()
		defer func() {
			close(stop)
			wg.Wait()
		}()
	}
	rows, err := r.run(o)
	out := Outcome{Options: r.o, Rows: rows}
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return out, cause
	}
	return out, err
}

// runner is one Run's state.
type runner struct {
	p        Peer
	ctx      context.Context
	progress atomic.Int64 // bumped by every message, for watch
	o        Options
}

// watch cancels the run when no message has moved for the timeout.
func (r *runner) watch(stop <-chan struct{}, cancel context.CancelCauseFunc) {
	tick := time.NewTicker(max(r.p.Timeout/8, 10*time.Millisecond))
	defer tick.Stop()
	last, since := r.progress.Load(), time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			if n := r.progress.Load(); n != last {
				last, since = n, now
				continue
			}
			if now.Sub(since) >= r.p.Timeout {
				cancel(fmt.Errorf("no message from %s for %v (--timeout): it stopped or its host is unreachable", r.p.Name, r.p.Timeout))
				return
			}
		}
	}
}

func (r *runner) run(o Options) ([]Row, error) {
	if r.p.Initiator {
		if err := o.Validate(); err != nil {
			return nil, err
		}
		if err := r.sendJSON("plan", planMsg{o}); err != nil {
			return nil, err
		}
		var refusal string
		if err := r.recvJSON("plan's answer", &refusal); err != nil {
			return nil, err
		}
		if refusal != "" {
			return nil, fmt.Errorf("%s refused the test: %s", r.p.Name, refusal)
		}
	} else {
		var plan planMsg
		refusal := ""
		if err := r.recvJSON("plan", &plan); errors.Is(err, errNotJSON) {
			refusal = "its plan is not an hpcbench fabric plan (is the same hpcbench on both ends?)"
		} else if err != nil {
			return nil, err
		} else if err := plan.Validate(); err != nil {
			refusal = err.Error()
		} else if plan.Test != o.Test {
			refusal = fmt.Sprintf("it runs %s and this end %s", plan.Test, o.Test)
		}
		if err := r.sendJSON("plan's answer", refusal); err != nil {
			return nil, err
		}
		if refusal != "" {
			return nil, fmt.Errorf("%s asked for a test this end will not run: %s", r.p.Name, refusal)
		}
		o = plan.Options
	}
	r.o = o
	largest := 0
	for _, s := range o.Sizes {
		largest = max(largest, s)
	}
	bufs := r.buffers(largest)
	defer bufs.free(r.p.Free)
	if IsRMA(o.Test) {
		release, err := r.exchangeKeys(bufs)
		if err != nil {
			return nil, err
		}
		defer release()
	}

	var rows []Row
	var defects int64
	for _, size := range o.Sizes {
		row, err := r.size(bufs, size)
		if err != nil {
			return rows, fmt.Errorf("%s, %d bytes: %w", o.Test, size, err)
		}
		defects += row.Defects
		if r.p.Initiator {
			rows = append(rows, row)
			if r.p.OnSize != nil {
				r.p.OnSize(row)
			}
		}
	}
	if r.p.Initiator {
		if err := r.sendJSON("results", rows); err != nil {
			return rows, err
		}
	} else if err := r.recvJSON("results", &rows); err != nil {
		return nil, err
	}
	if defects > 0 {
		return rows, fmt.Errorf("%w: %d messages did not hold what was sent", ErrCheck, defects)
	}
	return rows, nil
}

// sendJSON sends v encoded as JSON.
func (r *runner) sendJSON(what string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", what, err)
	}
	if err := r.p.Link.Send(r.ctx, b); err != nil {
		return fmt.Errorf("send %s to %s: %w", what, r.p.Name, err)
	}
	r.progress.Add(1)
	return nil
}

// recvJSON receives a JSON message into v.
func (r *runner) recvJSON(what string, v any) error {
	b := make([]byte, maxPlan)
	n, err := r.p.Link.Recv(r.ctx, b)
	if err != nil {
		return fmt.Errorf("receive %s from %s: %w", what, r.p.Name, err)
	}
	r.progress.Add(1)
	if err := json.Unmarshal(b[:n], v); err != nil {
		return fmt.Errorf("receive %s from %s: %w: %w", what, r.p.Name, errNotJSON, err)
	}
	return nil
}

// sendInt and recvInt move one int64 (a chunk length, a count).
func (r *runner) sendInt(b []byte, v int64) error {
	binary.LittleEndian.PutUint64(b[:8], uint64(v))
	if err := r.p.Link.Send(r.ctx, b[:8]); err != nil {
		return fmt.Errorf("send to %s: %w", r.p.Name, err)
	}
	r.progress.Add(1)
	return nil
}

func (r *runner) recvInt(b []byte) (int64, error) {
	n, err := r.p.Link.Recv(r.ctx, b[:8])
	if err != nil {
		return 0, fmt.Errorf("receive from %s: %w", r.p.Name, err)
	}
	r.progress.Add(1)
	if n != 8 {
		return 0, fmt.Errorf("receive from %s: a control message of %d bytes, want 8", r.p.Name, n)
	}
	return int64(binary.LittleEndian.Uint64(b[:8])), nil
}
