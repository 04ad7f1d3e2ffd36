package fabtest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// buffers are one end's message buffers, sized for the largest transfer.
type buffers struct {
	send, recv, want []byte
	ctl              [8]byte
	owned            [][]byte // from Peer.Alloc, for free
	peerKey          []byte   // the other end's exposed recv, for the RMA tests
}

// rmaPad is what the buffers have past their largest size, so that the
// RMA ping-pong can load the aligned word that holds a size's last byte.
const rmaPad = 8

func (r *runner) buffers(n int) *buffers {
	n += rmaPad
	b := &buffers{}
	get := func() []byte {
		if r.p.Alloc == nil {
			return make([]byte, n)
		}
		x := r.p.Alloc(n)
		b.owned = append(b.owned, x)
		return x[:n]
	}
	b.send, b.recv = get(), get()
	if r.o.Check {
		b.want = make([]byte, n)
	}
	return b
}

func (b *buffers) free(f func([]byte)) {
	if f == nil {
		return
	}
	for _, x := range b.owned {
		f(x)
	}
}

// fill writes the pattern of one end (seed) at one size into b, so that
// a message from the wrong end, of the wrong size or stale differs.
func fill(b []byte, seed byte, size int) {
	s := byte(size) ^ seed*0x5b
	for i := range b {
		b[i] = s + byte(i) + byte(i>>8)*7
	}
}

// Seeds of the two ends' patterns.
const (
	initiatorSeed = 1
	responderSeed = 2
)

// unitStep runs one unit of m messages on this end: a ping-pong round
// trip (m is 1), or a bandwidth window of m messages and its
// acknowledgement. It returns the messages it received that held the
// wrong bytes (with Check).
type unitStep func(m int64) (int64, error)

// sizeRun is one size on one end.
type sizeRun struct {
	r    *runner
	b    *buffers
	size int
}

// recvData receives one data message and checks its length and, with
// Check, its bytes.
func (x *sizeRun) recvData() (int64, error) {
	n, err := x.r.p.Link.Recv(x.r.ctx, x.b.recv[:x.size])
	if err != nil {
		return 0, fmt.Errorf("receive from %s: %w", x.r.p.Name, err)
	}
	x.r.progress.Add(1)
	if n != x.size {
		return 0, fmt.Errorf("receive from %s: a message of %d bytes, want %d", x.r.p.Name, n, x.size)
	}
	if x.r.o.Check && !bytes.Equal(x.b.recv[:n], x.b.want[:n]) {
		return 1, nil
	}
	return 0, nil
}

func (x *sizeRun) sendData(b []byte) error {
	if err := x.r.p.Link.Send(x.r.ctx, b); err != nil {
		return fmt.Errorf("send to %s: %w", x.r.p.Name, err)
	}
	x.r.progress.Add(1)
	return nil
}

// step returns this end's unit for the run's test.
func (x *sizeRun) step() unitStep {
	send := x.b.send[:x.size]
	switch {
	case x.r.o.Test == RMAPingPong:
		return x.rmaPingPong()
	case x.r.o.Test == RMABW && x.r.p.Initiator:
		return x.rmaWindow()
	case x.r.o.Test == RMABW:
		return x.rmaWindowAck()
	case x.r.o.Test == PingPong && x.r.p.Initiator:
		return func(int64) (int64, error) {
			if err := x.sendData(send); err != nil {
				return 0, err
			}
			return x.recvData()
		}
	case x.r.o.Test == PingPong:
		return func(int64) (int64, error) {
			bad, err := x.recvData()
			if err != nil {
				return 0, err
			}
			return bad, x.sendData(send)
		}
	case x.r.p.Initiator:
		return func(m int64) (int64, error) {
			for range m {
				if err := x.sendData(send); err != nil {
					return 0, err
				}
			}
			_, err := x.r.p.Link.Recv(x.r.ctx, x.b.ctl[:])
			if err != nil {
				return 0, fmt.Errorf("receive acknowledgement from %s: %w", x.r.p.Name, err)
			}
			x.r.progress.Add(1)
			return 0, nil
		}
	default:
		return func(m int64) (int64, error) {
			var bad int64
			for range m {
				n, err := x.recvData()
				if err != nil {
					return 0, err
				}
				bad += n
			}
			return bad, x.sendData(x.b.ctl[:0])
		}
	}
}

// unit returns the messages of the next unit when left remain: one for
// the ping-pong, a window (or what is left of one) for the bandwidth test.
func (r *runner) unit(left int64) int64 {
	if isPingPong(r.o.Test) {
		return 1
	}
	return min(int64(r.o.Window), left)
}

// xfers is the transfers of a unit of m messages.
func (r *runner) xfers(m int64) int64 {
	if isPingPong(r.o.Test) {
		return 2
	}
	return m
}

// units runs n messages' worth of units untimed (the warm-up), or, on
// the responder, the timed run of a fixed count too.
func (r *runner) units(step unitStep, n int64) (msgs, bad int64, err error) {
	for left := n; left > 0; {
		m := r.unit(left)
		b, err := step(m)
		if err != nil {
			return msgs, bad, err
		}
		msgs, bad, left = msgs+m, bad+b, left-m
	}
	return msgs, bad, nil
}

// size runs one size on this end and, on the initiator, returns its row.
func (r *runner) size(b *buffers, size int) (Row, error) {
	x := &sizeRun{r: r, b: b, size: size}
	seed, peerSeed := byte(responderSeed), byte(initiatorSeed)
	if r.p.Initiator {
		seed, peerSeed = peerSeed, seed
	}
	fill(b.send[:size], seed, size)
	if r.o.Check {
		fill(b.want[:size], peerSeed, size)
	}
	if r.o.Test == RMAPingPong {
		if err := r.clearForPolls(b, size); err != nil {
			return Row{}, err
		}
	}
	step := x.step()
	if _, _, err := r.units(step, r.o.Warmup); err != nil {
		return Row{}, fmt.Errorf("warm-up: %w", err)
	}
	if !r.p.Initiator {
		return Row{}, r.respond(step, b, size)
	}
	t, err := r.timed(step, b, size)
	if err != nil {
		return Row{}, err
	}
	acked, err := r.recvInt(b.ctl[:])
	if err != nil {
		return Row{}, err
	}
	peerBad, err := r.recvInt(b.ctl[:])
	if err != nil {
		return Row{}, err
	}
	row := Row{
		Size: size, Sent: t.msgs, Acked: acked, Xfers: t.xfers,
		Bytes: t.xfers * int64(size), Seconds: t.elapsed.Seconds(),
		P50: t.hist.Quantile(0.5), P99: t.hist.Quantile(0.99), Max: t.hist.Quantile(1),
		Intervals: t.intervals, Defects: t.bad + peerBad,
	}
	return row, nil
}

// respond is the responder's timed run: a fixed count, or the chunks
// the initiator announces until it announces none; then it reports the
// messages it received and those that were wrong.
func (r *runner) respond(step unitStep, b *buffers, size int) error {
	var msgs, bad int64
	if r.o.Duration <= 0 {
		var err error
		if msgs, bad, err = r.units(step, r.o.ItersFor(size)); err != nil {
			return err
		}
	} else {
		for {
			c, err := r.recvInt(b.ctl[:])
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
			m, w, err := r.units(step, c)
			if err != nil {
				return err
			}
			msgs, bad = msgs+m, bad+w
		}
	}
	if err := r.sendInt(b.ctl[:], msgs); err != nil {
		return err
	}
	return r.sendInt(b.ctl[:], bad)
}

// timing is the initiator's timed run.
type timing struct {
	msgs, xfers, bad int64
	elapsed          time.Duration
	hist             distribution.Hist
	intervals        []float64
}

// timed is the initiator's timed run of one size: a fixed count, or, in
// duration mode, chunks announced to the responder (one 8-byte message
// each, about a twentieth of a reporting interval apart) until -D has
// passed. Every unit is timed on its own for the percentiles.
func (r *runner) timed(step unitStep, b *buffers, size int) (*timing, error) {
	t := &timing{}
	start := time.Now()
	prev := start
	ivStart, ivBytes, ivN := start, int64(0), 0
	// interval closes the reporting interval that ends at now.
	interval := func(now time.Time) {
		mbps := float64(ivBytes) / now.Sub(ivStart).Seconds() / 1e6
		t.intervals = append(t.intervals, mbps)
		if r.p.OnInterval != nil {
			r.p.OnInterval(size, ivN, mbps)
		}
		ivStart, ivBytes, ivN = now, 0, ivN+1
	}
	run := func(n int64) error {
		for left := n; left > 0; {
			m := r.unit(left)
			bad, err := step(m)
			if err != nil {
				return err
			}
			now := time.Now()
			xf := r.xfers(m)
			t.hist.Record(now.Sub(prev).Nanoseconds() / xf)
			prev = now
			t.msgs, t.xfers, t.bad, left = t.msgs+m, t.xfers+xf, t.bad+bad, left-m
			if r.o.Duration > 0 {
				ivBytes += xf * int64(size)
				// Intervals end on fixed marks, start + k·interval, so
				// late readings do not push the later ones back.
				if !now.Before(start.Add(time.Duration(ivN+1) * r.o.Interval)) {
					interval(now)
				}
			}
		}
		return nil
	}
	if r.o.Duration <= 0 {
		if err := run(r.o.ItersFor(size)); err != nil {
			return nil, err
		}
		t.elapsed = prev.Sub(start)
		return t, nil
	}
	end := start.Add(r.o.Duration)
	chunk := r.unit(1 << 62) // one unit's messages to start with
	target := r.o.Interval / 20
	for {
		c0 := time.Now()
		if !c0.Before(end) {
			break
		}
		if err := r.sendInt(b.ctl[:], chunk); err != nil {
			return nil, err
		}
		if err := run(chunk); err != nil {
			return nil, err
		}
		// Aim the next chunk at target, at most doubling, never past end.
		took := time.Since(c0)
		next := chunk * 2
		if took > 0 {
			next = min(next, max(1, int64(float64(chunk)*float64(target)/float64(took))))
		}
		if left := time.Until(end); took > 0 && left > 0 {
			next = min(next, max(1, int64(float64(chunk)*float64(left)/float64(took))))
		}
		chunk = max(next, r.unit(1<<62))
	}
	if err := r.sendInt(b.ctl[:], 0); err != nil {
		return nil, err
	}
	// The chunks stop just short of -D, so the last interval is a little
	// short of a whole one: it counts, over its own length, when it is
	// at least half an interval (-D 3 reports 3 intervals, not 2), and
	// a sliver after a whole one is left out rather than read as a rate.
	if ivBytes > 0 && prev.Sub(ivStart) >= r.o.Interval/2 {
		interval(prev)
	}
	t.elapsed = prev.Sub(start)
	return t, nil
}
