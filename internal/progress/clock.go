package progress

import "time"

// Clock is the bar's source of time: Now stamps the start of the run, and
// NewTicker paces the redraws. Tests pass a fake so that the delay before
// the bar shows takes no real time; production uses the system clock.
type Clock interface {
	Now() time.Time
	// NewTicker returns a channel that delivers the time every d, dropping
	// ticks the reader is not ready for (as time.Ticker does), and a
	// function that stops it.
	NewTicker(d time.Duration) (c <-chan time.Time, stop func())
}

// systemClock is the Clock of package time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
