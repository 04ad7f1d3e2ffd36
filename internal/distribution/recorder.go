package distribution

import (
	"fmt"
	"time"
)

// DefaultInterval is the length of a time-series interval when --interval
// is not given.
const DefaultInterval = time.Second

// MaxIntervals bounds a series: when a phase outlasts that many intervals,
// neighbouring intervals merge in pairs and the interval doubles, so a
// recorder's memory is fixed however long the phase runs.
const MaxIntervals = 4096

// MinInterval is the shortest --interval accepted.
const MinInterval = time.Millisecond

// CheckInterval returns an error naming --interval when iv is outside
// [MinInterval, 1h].
func CheckInterval(iv time.Duration) error {
	if iv < MinInterval || iv > time.Hour {
		return fmt.Errorf("--interval %v: want a duration in [%v, 1h]", iv, MinInterval)
	}
	return nil
}

// Recorder records one rank's phase: the latency of every operation, the
// amount (bytes, items, repetitions) done per interval of time, and, with
// --until-steady, when that amount became steady. Times are nanoseconds
// since the phase's start, on the engine's own clock. Its methods allocate
// nothing once New returned it.
type Recorder struct {
	// Lat holds the latency of every operation recorded.
	Lat Hist

	iv     int64     // interval, ns (doubled by halve)
	iv0    int64     // the interval New was given, which Reset restores
	k0     int       // the steady window's intervals at iv0
	edge   int64     // end of the current interval
	cur    float64   // amount done in the current interval so far
	series []float64 // amount done in every complete interval
	total  float64   // amount done in all
	last   int64     // end of the previous operation (Next)
	end    int64     // the phase's end on this rank (Done), -1 before
	steady Steady
	k      int   // intervals in the steady window; 0 when off
	at     int64 // when the steady test passed, -1 before

	// Sampling (Due, Skip): every operation is timed until calibrate
	// of them were, then one in every.
	timed uint64 // operations timed (Op) in this phase
	spent int64  // their durations' sum, while calibrating
	every int64  // time one operation in every
	left  int64  // operations still to skip before the next timed one
	rng   uint64 // xorshift state for the skips' jitter

	onInterval func(done float64) // OnInterval's hook, or nil
}

// The sampling policy: the first calibrate operations of a phase are all
// timed; then one in every k, with k the smallest that keeps the two clock
// reads of a timed operation (about 25 ns each) near 0.5% of the
// operations' time: k = SampleBudget over the calibrated mean, in
// [1, MaxEvery]. Operations of 10 us and more are all timed; 1 us ones
// one in 10; faster ones one in 64. Fixing k after calibration, rather
// than adapting it as operations go, keeps the sample unbiased: a stall
// does not make the next operations more likely to be timed.
const (
	calibrate    = 64
	SampleBudget = 10 * time.Microsecond
	MaxEvery     = 64
)

// New returns a Recorder with intervals of iv and the --until-steady test
// s (zero for none), or an error naming the flag that is out of range.
func New(iv time.Duration, s Steady) (*Recorder, error) {
	if err := CheckInterval(iv); err != nil {
		return nil, err
	}
	k, err := s.Intervals(iv)
	if err != nil {
		return nil, err
	}
	r := &Recorder{iv: int64(iv), iv0: int64(iv), steady: s, k: k, k0: k, series: make([]float64, 0, MaxIntervals), rng: 0x9e3779b97f4a7c15}
	r.Reset()
	return r, nil
}

// Reset empties r for the next phase, keeping its interval and test.
func (r *Recorder) Reset() {
	r.Lat = Hist{}
	r.iv, r.k = r.iv0, r.k0 // a long phase's halving does not carry over
	r.edge, r.cur, r.series, r.total, r.last, r.end, r.at = r.iv, 0, r.series[:0], 0, 0, -1, -1
	r.timed, r.spent, r.every, r.left = 0, 0, 1, 0
}

// Due reports whether the engine should time its next operation: read
// the clock before and after it and call Op. When Due is false the engine
// runs the operation untimed and calls Skip. Loops that use Due read the
// clock twice per timed operation and not at all for the others; loops
// that time every operation call Op or Next and never Due.
func (r *Recorder) Due() bool { return r.left <= 0 }

// Skip records an operation that was not timed and did amount: it counts
// in the series (in the interval of the last timed operation, at most
// MaxEvery operations late) but not in the latencies. It returns true
// once the phase is steady.
func (r *Recorder) Skip(amount float64) bool {
	r.left--
	r.cur += amount
	r.total += amount
	return r.at >= 0
}

// Every returns how many operations the phase times one of, once
// calibrated (1 before, and for loops that time every operation).
func (r *Recorder) Every() int64 { return r.every }

// Op records an operation that ran from start to end and did amount; it
// returns true once the phase is steady (the engine stops the phase).
func (r *Recorder) Op(start, end int64, amount float64) bool {
	r.Lat.Record(end - start)
	r.timed++
	if r.timed <= calibrate {
		r.spent += end - start
		if r.timed == calibrate {
			mean := max(r.spent/calibrate, 1)
			r.every = min(max((int64(SampleBudget)+mean-1)/mean, 1), MaxEvery)
		}
	}
	r.left = r.skips()
	r.last = end
	if end >= r.edge {
		r.roll(end)
	}
	r.cur += amount
	r.total += amount
	return r.at >= 0
}

// skips returns how many operations to skip before the next timed one:
// every-1 on average, drawn uniformly from [0, 2*every-2] so that the
// timed operations do not fall in step with a periodic workload (IOR's
// first transfer of every block of 64).
func (r *Recorder) skips() int64 {
	if r.every <= 1 {
		return 0
	}
	r.rng ^= r.rng << 13
	r.rng ^= r.rng >> 7
	r.rng ^= r.rng << 17
	return int64(r.rng % uint64(2*r.every-1))
}

// Mark sets where Next measures its next operation from: now, in place of
// the end of the previous operation, after a wait that is no operation's
// (a barrier, a collective).
func (r *Recorder) Mark(now int64) { r.last = now }

// Next records an operation that ran from the end of the previous one (or
// the phase's start) to end: for loops that read the clock once per
// operation.
func (r *Recorder) Next(end int64, amount float64) bool {
	return r.Op(r.last, end, amount)
}

// roll closes the intervals that ended before now, then runs the steady
// test over the last window.
func (r *Recorder) roll(now int64) {
	for now >= r.edge {
		if len(r.series) == MaxIntervals {
			r.halve() // moves the edge; test again
			continue
		}
		r.series = append(r.series, r.cur)
		r.cur = 0
		r.edge += r.iv
	}
	if r.k > 0 && r.at < 0 && len(r.series) >= r.k && steadyOver(r.series[len(r.series)-r.k:], r.steady.Tolerance) {
		r.at = now
	}
	if r.onInterval != nil {
		r.onInterval(r.total)
	}
}

// OnInterval sets a hook that Op calls, with the amount done so far in
// the phase, when an operation ends in a new interval: about once per
// interval, so an engine can report its progress in a long phase without
// a test of its own in the timed loop. Nil removes it; Reset keeps it.
func (r *Recorder) OnInterval(f func(done float64)) { r.onInterval = f }

// halve merges neighbouring intervals in pairs and doubles the interval;
// the interval in progress becomes the first half of the next one.
func (r *Recorder) halve() {
	n := len(r.series) / 2
	for i := range n {
		r.series[i] = r.series[2*i] + r.series[2*i+1]
	}
	if len(r.series)%2 == 1 {
		r.series[n] = r.series[len(r.series)-1]
		n++
	}
	r.series = r.series[:n]
	r.iv *= 2
	r.edge = int64(len(r.series)+1) * r.iv
	r.k = max(2, (r.k+1)/2)
}

// Done ends the phase on this rank at now.
func (r *Recorder) Done(now int64) {
	if now >= r.edge {
		r.roll(now)
	}
	r.end = max(now, r.last)
}

// Interval returns the series' current interval.
func (r *Recorder) Interval() time.Duration { return time.Duration(r.iv) }

// Total returns the amount done in the phase.
func (r *Recorder) Total() float64 { return r.total }

// SteadyAt returns when the steady test passed, in nanoseconds since the
// phase's start, and false if it has not.
func (r *Recorder) SteadyAt() (int64, bool) { return r.at, r.at >= 0 }

// Steady returns the --until-steady test r runs.
func (r *Recorder) Steady() Steady { return r.steady }
