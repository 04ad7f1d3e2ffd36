package ior

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// collPass is one rank's state through the rounds of a collective phase.
type collPass struct {
	t     *tester
	c     *collectives.Comm
	me    int // this rank in c
	file  aiori.File
	acc   access
	pl    *plan // nil on an idle rank
	d     collDecision
	agg   int // this rank's index among the aggregators, or -1
	write bool
	// verify checks what a read delivers (-R, -W); pieces split over
	// rounds wait in partial until whole.
	verify  bool
	partial map[int64]*collPiece
	free    [][]byte
	done    int64 // pieces moved
	bad     int64 // pieces found corrupt
	// sendBufs holds a buffer per destination, reused from round to
	// round; stage receives one message at a time.
	sendBufs map[int][]byte
	stage    []byte
	// An aggregator's two collective buffers (tester.collBufs) take turns:
	// it writes one round from one, in a goroutine, while it gathers the
	// next in the other. (A read does not overlap so: reading the next
	// round in a goroutine while sending the last made rounds slower on
	// two CPUs, where the waits of the transport spin.) pending, when not
	// nil, reports the write in flight; wait collects it.
	bufs    [2][]byte
	pending chan error
}

// collPiece is a piece of this rank's read arriving in parts.
type collPiece struct {
	buf []byte
	got int64
}

// collectiveTransfers is the timed (or -W) pass of a phase under -c.
// Every rank of the job calls it, an idle one (-N) with pl and file nil.
// It returns the transfers this rank moved and how many of them were
// corrupt, as transfers does, and the decision, for the record.
func (t *tester) collectiveTransfers(ctx context.Context, file aiori.File, acc access, pl *plan) (n, bad int64, d collDecision, err error) {
	c, hosts, active, err := t.collGroup()
	if err != nil {
		return 0, 0, d, err
	}
	if t.o.FilePerProc && pl == nil {
		return 0, 0, collDecision{why: "no transfers"}, nil
	}
	members, err := gather(ctx, c, pl)
	if err != nil {
		return 0, 0, d, err
	}
	if t.o.CollectiveCall == config.CallTransfer {
		return t.collectiveCalls(ctx, c, hosts, active, file, acc, pl, members)
	}
	if d, err = t.decide(acc, members, hosts, active); err != nil {
		return 0, 0, d, fmt.Errorf("collective I/O: %w", err)
	}
	if !d.collective {
		if pl == nil {
			return 0, 0, d, nil
		}
		n, bad, err = t.transfers(file, acc, pl, 0, pl.count, math.Inf(1), false)
		return n, bad, d, err
	}
	n, bad, err = t.collPassOf(c, file, acc, pl, d).rounds(ctx)
	return n, bad, d, err
}

// collPassOf returns this rank's pass through the rounds of d.
func (t *tester) collPassOf(c *collectives.Comm, file aiori.File, acc access, pl *plan, d collDecision) *collPass {
	p := &collPass{t: t, c: c, me: c.Rank(), file: file, acc: acc, pl: pl, d: d, agg: d.plan.AggIndex(c.Rank()),
		write: acc == accWrite, verify: acc == accWriteCheck || (acc == accRead && t.o.CheckRead),
		partial: map[int64]*collPiece{}, sendBufs: t.collSend}
	if p.agg >= 0 {
		p.bufs = t.collBuffers(d.plan.BufferSize)
	}
	return p
}

// rounds runs the rounds of the phase and returns the transfers moved and
// found corrupt.
func (p *collPass) rounds(ctx context.Context) (n, bad int64, err error) {
	t := p.t
	defer func() {
		if werr := p.wait(); err == nil {
			err = werr
		}
	}()
	prev := t.since()
	for m := range p.d.plan.Rounds {
		mine, err := p.round(ctx, m)
		if err != nil {
			return p.done, p.bad, err
		}
		if mine > 0 {
			now := t.since()
			t.rec.Op(prev, now, float64(mine))
			prev = now
		}
	}
	if err := p.wait(); err != nil {
		return p.done, p.bad, err
	}
	pl := p.pl
	if len(p.partial) > 0 {
		return p.done, p.bad, fmt.Errorf("collective I/O: %d transfers of %s only partly read", len(p.partial), pl.path)
	}
	if p.write {
		p.done = p.mine().N // a write's pieces all went out
	}
	return p.done, p.bad, nil
}

// wait collects the aggregator's I/O in flight, if any.
func (p *collPass) wait() error {
	if p.pending == nil {
		return nil
	}
	err := <-p.pending
	p.pending = nil
	return err
}

// background runs io in a goroutine that wait collects, after collecting
// the one before.
func (p *collPass) background(io func() error) error {
	if err := p.wait(); err != nil {
		return err
	}
	done := make(chan error, 1)
	p.pending = done
	go func() { done <- io() }()
	return nil
}

// mine is this rank's request, empty on an idle rank.
func (p *collPass) mine() twophase.Request { return p.d.reqs[p.me] }

// round runs round m and returns the bytes of this rank's own access it
// moved.
func (p *collPass) round(ctx context.Context, m int) (int64, error) {
	if p.write {
		return p.writeRound(ctx, m)
	}
	return p.readRound(ctx, m)
}

// sendBuf returns a buffer of n bytes for peer.
func (p *collPass) sendBuf(peer int, n int64) []byte {
	b := p.sendBufs[peer]
	if int64(cap(b)) < n {
		b = make([]byte, n)
		p.sendBufs[peer] = b
	}
	return b[:n]
}

// stamp makes the transfer buffer hold piece i of this rank's write.
func (p *collPass) stamp(i int64) {
	t := p.t
	pattern.Stamp(t.buf, t.ptype, p.pl.pretend, t.sig, p.mine().At(i))
}

// writeRound sends this rank's bytes of each aggregator's round range to
// it and, on an aggregator, receives the others', places them in the
// collective buffer and writes the range with one call.
func (p *collPass) writeRound(ctx context.Context, m int) (int64, error) {
	t, q, plan := p.t, p.mine(), p.d.plan
	var sends []collMsg
	var mine int64
	for a, agg := range plan.Aggs {
		rng := plan.Round(a, m)
		if agg == p.me || rng.Empty() {
			continue
		}
		size := q.Parts(rng, nil)
		if size == 0 {
			continue
		}
		mine += size
		if p.direct(size, countParts(q, rng)) {
			var parts [][]byte
			q.Parts(rng, func(pt twophase.Part) { parts = append(parts, t.buf[pt.From:pt.To]) })
			sends = append(sends, collMsg{peer: agg, parts: parts, n: size})
			continue
		}
		buf, at := p.sendBuf(agg, size), int64(0)
		q.Parts(rng, func(pt twophase.Part) {
			p.stamp(pt.Piece)
			at += int64(copy(buf[at:], t.buf[pt.From:pt.To]))
		})
		sends = append(sends, collMsg{peer: agg, buf: buf})
	}
	var recvs []collMsg
	var rng twophase.Extent
	if p.agg >= 0 {
		rng = plan.Round(p.agg, m)
	}
	cb := p.bufs[m%2]
	if !rng.Empty() {
		cb = cb[:rng.Len()]
		var total int64
		for r, rq := range p.d.reqs {
			n := rq.Parts(rng, nil)
			total += n
			switch {
			case r == p.me || n == 0:
			case p.direct(n, countParts(rq, rng)):
				recvs = append(recvs, collMsg{peer: r, n: n, parts: slicesOf(rq, rng, cb)})
			default:
				recvs = append(recvs, collMsg{peer: r, n: n})
			}
		}
		if total != rng.Len() {
			// Holes (or overlaps): read the range first, as ROMIO's
			// read-modify-write does, so the write keeps what is there
			// (once the previous round's write is done).
			if err := p.wait(); err != nil {
				return mine, err
			}
			if err := p.readRange(cb, rng, true); err != nil {
				return mine, err
			}
		}
		mine += q.Parts(rng, func(pt twophase.Part) {
			p.stamp(pt.Piece)
			copy(cb[pt.Off-rng.Start:], t.buf[pt.From:pt.To])
		})
	}
	err := p.exchange(ctx, sends, recvs, func(from int, data []byte) {
		if data == nil {
			return // received in place
		}
		at := int64(0)
		p.d.reqs[from].Parts(rng, func(pt twophase.Part) {
			at += int64(copy(cb[pt.Off-rng.Start:pt.Off-rng.Start+pt.Len()], data[at:]))
		})
	})
	if err != nil || rng.Empty() {
		return mine, err
	}
	return mine, p.background(func() error {
		if _, err := p.file.WriteAt(cb, rng.Start); err != nil {
			return fmt.Errorf("write %s at offset %d (%d bytes, collective buffer): %w", p.pl.path, rng.Start, rng.Len(), err)
		}
		if t.o.FsyncPerWrite {
			if err := t.fsync(p.file); err != nil {
				return fmt.Errorf("fsync %s: %w", p.pl.path, err)
			}
		}
		return nil
	})
}

// readRange reads rng of the file into b. With holesOK (before a
// read-modify-write) the part past the end of the file reads as zeros;
// otherwise the range must be there.
func (p *collPass) readRange(b []byte, rng twophase.Extent, holesOK bool) error {
	got, err := p.file.ReadAt(b, rng.Start)
	if errors.Is(err, io.EOF) && (holesOK || got == len(b)) {
		clear(b[got:])
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s at offset %d (%d bytes, collective buffer): %w", p.pl.path, rng.Start, rng.Len(), err)
	}
	return nil
}

// readRound reads, on an aggregator, its round range with one call and
// sends each rank its bytes; every rank receives its bytes of each
// aggregator's range and checks the transfers they complete.
func (p *collPass) readRound(ctx context.Context, m int) (int64, error) {
	q, plan := p.mine(), p.d.plan
	var sends []collMsg
	var mine int64
	if p.agg >= 0 {
		if rng := plan.Round(p.agg, m); !rng.Empty() {
			cb := p.bufs[m%2][:rng.Len()]
			if err := p.readRange(cb, rng, false); err != nil {
				return 0, err
			}
			for r, rq := range p.d.reqs {
				if r == p.me {
					continue
				}
				size := rq.Parts(rng, nil)
				if size == 0 {
					continue
				}
				if p.direct(size, countParts(rq, rng)) {
					sends = append(sends, collMsg{peer: r, n: size, parts: slicesOf(rq, rng, cb)})
					continue
				}
				buf, at := p.sendBuf(r, size), int64(0)
				rq.Parts(rng, func(pt twophase.Part) {
					at += int64(copy(buf[at:], cb[pt.Off-rng.Start:pt.Off-rng.Start+pt.Len()]))
				})
				sends = append(sends, collMsg{peer: r, buf: buf})
			}
			mine += q.Parts(rng, func(pt twophase.Part) {
				p.deliver(pt, cb[pt.Off-rng.Start:pt.Off-rng.Start+pt.Len()])
			})
		}
	}
	var recvs []collMsg
	rngs := map[int]twophase.Extent{}
	for a, agg := range plan.Aggs {
		rng := plan.Round(a, m)
		if agg == p.me || rng.Empty() {
			continue
		}
		if n := q.Parts(rng, nil); n > 0 {
			m := collMsg{peer: agg, n: n}
			if k := countParts(q, rng); p.direct(n, k) {
				// The parts end to end in the stage buffer.
				stage, at := p.stageBuf(n), int64(0)
				m.parts, m.inStage = make([][]byte, 0, k), true
				q.Parts(rng, func(pt twophase.Part) {
					m.parts = append(m.parts, stage[at:at+pt.Len()])
					at += pt.Len()
				})
			}
			recvs = append(recvs, m)
			rngs[agg] = rng
			mine += n
		}
	}
	err := p.exchange(ctx, sends, recvs, func(from int, data []byte) {
		at := int64(0)
		q.Parts(rngs[from], func(pt twophase.Part) {
			p.deliver(pt, data[at:at+pt.Len()])
			at += pt.Len()
		})
	})
	return mine, err
}

// deliver takes the bytes of one part of this rank's read: a whole piece
// is checked at once, a partial one once its other parts came.
func (p *collPass) deliver(pt twophase.Part, data []byte) {
	size := p.mine().Size
	if pt.From == 0 && pt.To == size {
		p.finish(pt.Piece, data)
		return
	}
	cp := p.partial[pt.Piece]
	if cp == nil {
		cp = &collPiece{}
		if n := len(p.free); n > 0 {
			cp.buf, p.free = p.free[n-1], p.free[:n-1]
		} else {
			cp.buf = make([]byte, size)
		}
		p.partial[pt.Piece] = cp
	}
	copy(cp.buf[pt.From:pt.To], data)
	if cp.got += pt.Len(); cp.got == size {
		p.finish(pt.Piece, cp.buf)
		delete(p.partial, pt.Piece)
		p.free = append(p.free, cp.buf)
	}
}

// finish counts piece i, whole in buf, and checks it under -R and -W.
func (p *collPass) finish(i int64, buf []byte) {
	p.done++
	if !p.verify {
		return
	}
	t := p.t
	if b, _ := pattern.Verify(buf, t.ptype, p.pl.pretend, t.sig, p.mine().At(i)); b > 0 {
		p.bad++
	}
}

// countParts returns how many parts of q fall in rng.
func countParts(q twophase.Request, rng twophase.Extent) int64 {
	var k int64
	q.Parts(rng, func(twophase.Part) { k++ })
	return k
}

// slicesOf returns the slices of cb, the collective buffer of rng, that
// q's parts in rng occupy, in order.
func slicesOf(q twophase.Request, rng twophase.Extent, cb []byte) [][]byte {
	var s [][]byte
	q.Parts(rng, func(pt twophase.Part) { s = append(s, cb[pt.Off-rng.Start:pt.Off-rng.Start+pt.Len()]) })
	return s
}
