package imb

import "math"

// The measured run's recording into the distributions (see dist.go): a
// kernel's readings of now's clock become nanoseconds since the phase's
// start, and the loops IMB times as a whole read the clock once per
// sample of repetitions rather than after every one.

// sampleSpan is the least time between two clock readings for the
// distributions in the loops IMB times as a whole; a sample spans from it
// to 4 times it (nextStride). A reading (and what it records) after every
// repetition added about 45 ns to a 1-byte PingPong's t of 0.27 µs over
// shm, 16%; reading once per 10 µs of repetitions costs about 1%.
const sampleSpan = 10e-6

// sampleStride returns how many repetitions of mean seconds each (the
// warm-up's mean on this rank) go between the first two readings: enough
// to span sampleSpan, and 1 when a repetition is that long or longer.
func sampleStride(mean float64) int {
	if !(mean > 0) || mean >= sampleSpan {
		return 1
	}
	return int(min(math.Ceil(sampleSpan/mean), maxStride))
}

// maxStride bounds the repetitions in one sample.
const maxStride = 1 << 20

// nextStride returns the stride after a sample of k repetitions that
// spanned span ns: doubled while samples are shorter than sampleSpan,
// halved when they are more than 4 times longer.
func nextStride(k int, span int64) int {
	switch {
	case span < int64(sampleSpan*1e9) && k < maxStride:
		return 2 * k
	case span > int64(4*sampleSpan*1e9) && k > 1:
		return k / 2
	}
	return k
}

// begin starts the recorded phase, if any, at t, the first clock
// reading after the kernel's barriers.
func (x *sizeRun) begin(t float64) { x.t0 = t }

// ns converts a reading of now's clock to nanoseconds since the phase's
// start, the Recorder's time, rounded to the nearest.
func (x *sizeRun) ns(t float64) int64 { return int64((t-x.t0)*1e9 + 0.5) }

// op records one repetition from start to end, readings of now's clock.
func (x *sizeRun) op(start, end float64) {
	if x.rec != nil {
		x.rec.Op(x.ns(start), x.ns(end), 1)
	}
}

// done ends the recorded phase at t.
func (x *sizeRun) done(t float64) {
	if x.rec != nil {
		x.rec.Done(x.ns(t))
	}
}
