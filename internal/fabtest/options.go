package fabtest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The tests Run knows.
const (
	// PingPong is fi_pingpong's and ib_send_lat's test: the initiator sends
	// one message, the responder sends it back, and again; a transfer is one
	// way, so usec/xfer is half a round trip.
	PingPong = "pingpong"
	// BW is fi_msg_bw's and ib_send_bw's test: the initiator sends a window
	// of messages, the responder receives them and answers with one
	// zero-byte acknowledgement, and again; a transfer is one message.
	BW = "bw"
	// RMABW is fi_rma_bw's and ib_write_bw's test: the initiator writes a
	// window of messages into the responder's exposed buffer with
	// one-sided RMA writes, then tells it the window's count and waits for
	// its acknowledgement; a transfer is one write.
	RMABW = "rma_bw"
	// RMAPingPong is ib_write_lat's test: each end writes into the other's
	// exposed buffer, which the other polls for the write's last byte, and
	// writes back; usec/xfer is half a round trip. Sizes start at 1 byte
	// (the byte polled).
	RMAPingPong = "rma_pingpong"
)

// Tests lists the tests in the order help shows them.
func Tests() []string { return []string{PingPong, BW, RMABW, RMAPingPong} }

// IsRMA reports whether test moves its data with one-sided RMA.
func IsRMA(test string) bool { return test == RMABW || test == RMAPingPong }

// isPingPong reports whether test goes back and forth, a round trip per
// iteration (two transfers), rather than in windows.
func isPingPong(test string) bool { return test == PingPong || test == RMAPingPong }

// Defaults, as fabtests' INIT_OPTS and perftest have them.
const (
	DefaultWarmup   = 10      // fabtests' warmup_iterations
	DefaultWindow   = 64      // fabtests' window_size
	DefaultMaxSize  = 1 << 20 // -S all goes up to this
	DefaultInterval = time.Second
	// MaxSize bounds a transfer: each side holds two buffers of it.
	MaxSize = 1 << 30
	// MaxIters bounds -I.
	MaxIters = 1 << 40
)

// DefaultSizes is the sizes a run without -S measures, as fabtests'
// default list: 64 B to 1 MiB.
func DefaultSizes() []int { return []int{64, 256, 1 << 10, 4 << 10, 64 << 10, 1 << 20} }

// AllSizes is -S all: every power of two from 1 B up to max.
func AllSizes(max int) []int {
	var s []int
	for n := 1; n <= max; n *= 2 {
		s = append(s, n)
	}
	return s
}

// DefaultIters is the iteration count for size when -I is not given, as
// fabtests scales it: 10,000 below 64 KiB, 1,000 below 1 MiB, 100 from
// 1 MiB, twice that for the bandwidth test (whose transfers are one way).
func DefaultIters(test string, size int) int64 {
	n := int64(100)
	switch {
	case size < 64<<10:
		n = 10000
	case size < 1<<20:
		n = 1000
	}
	if !isPingPong(test) {
		n *= 2
	}
	return n
}

// Options is one run of one test over a range of sizes: the initiator's
// plan, which the responder follows.
type Options struct {
	// Test is one of Tests().
	Test string `json:"test"`
	// Sizes are the transfer sizes in bytes, measured in this order.
	Sizes []int `json:"sizes"`
	// Iters is the timed iterations per size; 0 means DefaultIters.
	Iters int64 `json:"iters,omitempty"`
	// Warmup is the untimed iterations before each size's timed ones.
	Warmup int64 `json:"warmup"`
	// Window is the messages the bandwidth test sends per acknowledgement.
	Window int `json:"window"`
	// Duration, when positive, times each size for this long instead of
	// for Iters iterations (perftest's -D).
	Duration time.Duration `json:"duration,omitempty"`
	// Interval is duration mode's reporting window: the bandwidth of every
	// whole Interval is reported, and the least of them (an intermittent
	// link shows there first).
	Interval time.Duration `json:"interval,omitempty"`
	// Check verifies every received message's bytes (fi_pingpong's -c).
	Check bool `json:"check,omitempty"`
}

// DefaultOptions returns the options of a run given no flags.
func DefaultOptions(test string) Options {
	return Options{Test: test, Sizes: DefaultSizes(), Warmup: DefaultWarmup, Window: DefaultWindow, Interval: DefaultInterval}
}

// ItersFor returns the timed iterations for size.
func (o *Options) ItersFor(size int) int64 {
	if o.Iters > 0 {
		return o.Iters
	}
	return DefaultIters(o.Test, size)
}

// Validate reports the first invalid option, naming its flag and the
// accepted range.
func (o *Options) Validate() error {
	switch {
	case !slices.Contains(Tests(), o.Test):
		return fmt.Errorf("test %q: must be one of %s", o.Test, strings.Join(Tests(), ", "))
	case len(o.Sizes) == 0:
		return fmt.Errorf("-S: no sizes")
	case o.Iters < 0 || o.Iters > MaxIters:
		return fmt.Errorf("-I %d: must be 1 to %d", o.Iters, int64(MaxIters))
	case o.Warmup < 0 || o.Warmup > MaxIters:
		return fmt.Errorf("-w %d: must be 0 to %d", o.Warmup, int64(MaxIters))
	case o.Window < 1 || o.Window > 1<<20:
		return fmt.Errorf("-W %d: must be 1 to %d", o.Window, 1<<20)
	case o.Duration < 0:
		return fmt.Errorf("-D %v: must not be negative", o.Duration)
	case o.Duration > 0 && o.Interval <= 0:
		return fmt.Errorf("--report-interval %v: must be positive", o.Interval)
	case o.Duration > 0 && o.Interval > o.Duration:
		return fmt.Errorf("--report-interval %v: must not be longer than -D %v", o.Interval, o.Duration)
	}
	least := 0
	if o.Test == RMAPingPong {
		least = 1 // the byte polled
	}
	for _, s := range o.Sizes {
		if s < least || s > MaxSize {
			return fmt.Errorf("-S %d: must be %d to %d (1 GiB) for %s", s, least, MaxSize, o.Test)
		}
	}
	return nil
}
