package ior

import (
	"context"
	"fmt"
)

// collMsg is what a round moves between this rank and peer: buf to send,
// or n bytes to receive into the stage buffer; or, when parts is not nil,
// one message per part, sent from or received into the part's slice.
type collMsg struct {
	peer  int
	buf   []byte
	n     int64
	parts [][]byte
	// inStage says that the received parts lie end to end from the start
	// of the stage buffer, which got then sees whole.
	inStage bool
}

// directMin is the average part a round's message must have for its parts
// to go as messages of their own, straight from and into the collective
// buffer, rather than packed into one message: above it the copies saved
// outweigh the messages' own costs.
const directMin = 16 << 10

// direct reports whether n bytes in k parts go as k messages. Both ends
// decide alike from what they both know: a write's sender can send its
// parts from the transfer buffer only when the data pattern is the same
// for every transfer (it stamps nothing per transfer).
func (p *collPass) direct(n, k int64) bool {
	if k < 2 || n/k < directMin {
		return false
	}
	return !p.write || !p.t.ptype.PerTransfer()
}

// exchange sends every message of sends and receives every one of recvs,
// in order, calling got with each received message before the next
// receive (got's slice is reused). Sends and receives run at the same time
// when there are both, so that two aggregators that send each other data
// cannot deadlock over a transport whose Send waits for the Recv; sends
// go in aggregator (or rank) order and receives in rank (or aggregator)
// order on every rank, so the waits never form a cycle.
func (p *collPass) exchange(ctx context.Context, sends, recvs []collMsg, got func(from int, data []byte)) error {
	// received checks a received message and hands it to got.
	received := func(m collMsg, b []byte, n int, err error) error {
		if err != nil {
			return fmt.Errorf("collective I/O: %w", err)
		}
		if int64(n) != m.n {
			return fmt.Errorf("collective I/O: rank %d sent %d bytes, want %d", m.peer, n, m.n)
		}
		got(m.peer, b)
		return nil
	}
	recvOne := func(m collMsg) error {
		if m.parts == nil {
			b := p.stageBuf(m.n)
			n, err := p.c.Recv(ctx, m.peer, b)
			return received(m, b, n, err)
		}
		var total int
		for _, b := range m.parts {
			n, err := p.c.Recv(ctx, m.peer, b)
			if err == nil && n != len(b) {
				err = fmt.Errorf("rank %d sent a part of %d bytes, want %d", m.peer, n, len(b))
			}
			if err != nil {
				return received(m, nil, total, err)
			}
			total += n
		}
		var whole []byte
		if m.inStage && len(m.parts) > 0 {
			whole = m.parts[0][:total] // the parts' own stage buffer
		}
		return received(m, whole, total, nil)
	}
	sendAll := func(ctx context.Context) error {
		for _, m := range sends {
			parts := m.parts
			if parts == nil {
				parts = [][]byte{m.buf}
			}
			for _, b := range parts {
				if err := p.c.Send(ctx, m.peer, b); err != nil {
					return fmt.Errorf("collective I/O: %w", err)
				}
			}
		}
		return nil
	}
	switch {
	case len(recvs) == 0:
		return sendAll(ctx)
	case len(sends) == 0:
		for _, m := range recvs {
			if err := recvOne(m); err != nil {
				return err
			}
		}
		return nil
	case len(sends) == 1 && len(recvs) == 1 && sends[0].peer == recvs[0].peer && sends[0].parts == nil && recvs[0].parts == nil:
		m := recvs[0]
		b := p.stageBuf(m.n)
		n, err := p.c.Sendrecv(ctx, m.peer, sends[0].buf, m.peer, b)
		return received(m, b, n, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sent := make(chan error, 1)
	go func() {
		err := sendAll(ctx)
		if err != nil {
			cancel()
		}
		sent <- err
	}()
	var rerr error
	for _, m := range recvs {
		if rerr = recvOne(m); rerr != nil {
			cancel()
			break
		}
	}
	serr := <-sent
	if rerr != nil {
		return rerr
	}
	return serr
}

// stageBuf returns the receive buffer, n bytes long.
func (p *collPass) stageBuf(n int64) []byte {
	if int64(cap(p.stage)) < n {
		p.stage = make([]byte, n)
	}
	return p.stage[:n]
}
