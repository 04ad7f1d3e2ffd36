package ior

import (
	"context"
	"fmt"
)

// collMsg is one message of a round: buf to send to peer, or n bytes to
// receive from it.
type collMsg struct {
	peer int
	buf  []byte
	n    int64
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
		b := p.stageBuf(m.n)
		n, err := p.c.Recv(ctx, m.peer, b)
		return received(m, b, n, err)
	}
	sendAll := func(ctx context.Context) error {
		for _, m := range sends {
			if err := p.c.Send(ctx, m.peer, m.buf); err != nil {
				return fmt.Errorf("collective I/O: %w", err)
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
	case len(sends) == 1 && len(recvs) == 1 && sends[0].peer == recvs[0].peer:
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
