package ofi

import (
	"context"
	"runtime"
	"time"
)

// Waiting: a waiter polls without pause for spinFor (a message within a
// ping-pong's round trip is caught at once), then sleeps between polls, the
// sleep doubling from sleepMin to sleepMax, so that an idle rank costs a
// poll per millisecond instead of a CPU.
const (
	spinFor  = 5 * time.Millisecond
	sleepMin = 20 * time.Microsecond
	sleepMax = time.Millisecond
	yieldGap = 64 // polls between yields while spinning
)

// pacer paces one wait's polls.
type pacer struct {
	polls int
	start time.Time
	sleep time.Duration
}

// pause waits before the next poll, and returns ctx's error once it has
// ended.
func (p *pacer) pause(ctx context.Context) error {
	p.polls++
	if p.polls%yieldGap != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.start.IsZero() {
		p.start = time.Now()
	}
	if time.Since(p.start) < spinFor {
		runtime.Gosched()
		return nil
	}
	p.sleep = min(max(2*p.sleep, sleepMin), sleepMax)
	t := time.NewTimer(p.sleep)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	p.polls = yieldGap - 1 // check again after the next poll
	return nil
}
