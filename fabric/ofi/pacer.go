package ofi

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
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
	// nanosleep itself, not a Go timer: a timer of 20 us sleeps a whole
	// millisecond here (1.04 ms measured), nanosleep about 0.1 ms. At
	// most sleepMax passes before ctx is looked at again.
	ts := unix.NsecToTimespec(int64(p.sleep))
	_ = unix.Nanosleep(&ts, nil)
	p.polls = yieldGap - 1 // check again after the next poll
	return ctx.Err()
}
