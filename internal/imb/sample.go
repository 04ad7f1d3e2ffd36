package imb

// The measured run's recording into the distributions (see dist.go): a
// kernel's readings of now's clock become nanoseconds since the phase's
// start.

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
