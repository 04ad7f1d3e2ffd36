package verbs

import (
	"context"
	"runtime"
	"time"
)

// Waiting. A call that waits polls the completion queue itself: first
// busy (runtime.Gosched between polls, so that the peer's goroutines run
// when both ends are in this process) for up to Options.Spin, then with
// sleeps that grow to maxNap, so that a Recv left waiting for seconds
// does not hold a CPU. With EventMode, after the spin the call arms the
// CQ, polls once more (a completion that came before the arming raises no
// event) and sleeps in the completion channel for up to maxNap.
const (
	firstNap = 5 * time.Microsecond
	maxNap   = time.Millisecond
)

// wait calls step under mu until it reports done or an error, or until
// the connection is closed or ctx ends (then it returns ctx's error).
func (c *conn) wait(ctx context.Context, step func() (bool, error)) error {
	var start time.Time
	nap := firstNap
	for i := 0; ; i++ {
		c.mu.Lock()
		done, err := step()
		c.mu.Unlock()
		if done || err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case i == 0:
			start = time.Now()
			continue
		case c.spin < 0 || time.Since(start) < c.spin:
			runtime.Gosched()
			continue
		}
		if c.events {
			if c.waitEvent(nap) {
				continue
			}
		} else {
			time.Sleep(nap)
		}
		nap = min(2*nap, maxNap)
	}
}

// waitEvent arms the CQ and sleeps until its event or for d; it reports
// whether a completion may be there (it came, or arming failed and the
// caller should just poll).
func (c *conn) waitEvent(d time.Duration) bool {
	c.mu.Lock()
	err := c.ep.cq.Arm()
	var n int
	if err == nil && c.broken == nil {
		// A completion may have come between the last poll and the arming.
		n, err = c.ep.cq.Poll(c.wc[:])
		for i := range n {
			c.handle(&c.wc[i])
		}
	}
	c.mu.Unlock()
	if err != nil || n > 0 {
		return true
	}
	got, err := c.ep.cq.Wait(d)
	return got || err != nil
}
