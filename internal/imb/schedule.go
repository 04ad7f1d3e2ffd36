package imb

import "math"

// msgsPerSampleConst is IMB's compile-time MSGSPERSAMPLE, which the
// first-probe rule uses whatever -iter says.
const msgsPerSampleConst = 1000

// schedule chooses repetition counts the way IMB_init_buffers_iter does,
// for one benchmark at one process count: its state is the previous size's
// count (counts never grow with the size) and, for a -msglen list, the
// count chosen for every size so far. Only rank 0's choice matters; the
// engine broadcasts it.
type schedule struct {
	o        *Options
	lens     []int // the sizes, in run order, when they come from -msglen
	prev     int   // count chosen for the previous size
	numiters []int // count chosen for each size of lens so far
}

// newSchedule starts a schedule for one benchmark at one process count.
// sizes are that benchmark's sizes; they matter only for a -msglen list.
func newSchedule(o *Options, sizes []int) *schedule {
	s := &schedule{o: o, prev: o.MsgsPerSample}
	if len(o.MsgLen) > 0 {
		s.lens = sizes
	}
	return s
}

// selected returns IMB's starting count for a size: MSGSPERSAMPLE for size
// 0 or a Barrier, else min(MSGSPERSAMPLE, max(1, OVERALL_VOL/size)); with
// -iter_policy off, MSGSPERSAMPLE always.
func (s *schedule) selected(size int, sync bool) int {
	n := s.o.MsgsPerSample
	if s.o.IterPolicy == PolicyOff || sync || size == 0 {
		return n
	}
	return int(max(1, min(s.o.OverallVol/int64(size), int64(n))))
}

// dynamic reports whether counts are cut by measurement.
func (s *schedule) dynamic() bool { return s.o.IterPolicy == PolicyDynamic }

// probeReps returns how many repetitions the second timing probe runs,
// given the maximum over ranks of one repetition's time t1 (seconds): about
// one second's worth, MSGSPERSAMPLE below 1 ms, capped at selected.
func probeReps(selected int, t1 float64) int {
	rep := 1
	switch {
	case t1 < 1.0/msgsPerSampleConst:
		rep = msgsPerSampleConst
	case t1 < 1:
		rep = int(1/t1 + 0.5)
	}
	return min(selected, rep)
}

// final returns the count for the size at index iter of the run, given the
// maximum over ranks of the mean repetition time t (seconds) of the probe:
// 1 + Time/t repetitions, capped at selected, and never more than a smaller
// size got (for a -msglen list, in either order of the list). It records
// the choice; the caller must call it for every size in order.
func (s *schedule) final(iter, size, selected int, t float64, sync bool) int {
	tSample := selected
	if val := 1 + s.o.Time.Seconds()/t; t > 1e-8 && val <= math.MaxInt32 {
		tSample = int(val)
	}
	var n int
	if len(s.lens) > 0 && !sync {
		for i := 0; i < iter && i < len(s.numiters); i++ {
			if s.lens[i] < size {
				tSample = min(tSample, s.numiters[i])
			} else {
				tSample = max(tSample, s.numiters[i])
			}
		}
		n = min(selected, tSample)
		s.numiters = append(s.numiters[:iter], n)
	} else {
		n = min(selected, s.prev, tSample)
	}
	s.prev = n
	return n
}

// fixed records a count chosen without measurement (-iter_policy off).
func (s *schedule) fixed(n int) int {
	s.prev = n
	return n
}

// warmupReps is the warm-up run before a size's measured run: a tenth of
// its repetitions, at least min(10, n), as IMB_warm_up.
func warmupReps(n int) int {
	return max(n/10, min(10, n))
}

// settleTime is the least a warm-up lasts when the repetition time is
// known (the dynamic policy). For about 5 ms after a Go process blocks
// (in a long wait, or at start), the runtime's sysmon thread wakes every
// 20 µs plus the timer slack; a rank bound to one CPU loses about 30 µs of
// every 90 to it on a VM, a quarter of the CPU, and a 1,000-repetition
// 8-byte PingPong took 0.3 µs a message instead of 0.2. IMB's warm-up of
// n/10 repetitions lasts 50 µs there.
const settleTime = 5e-3

// settledWarmup is warmupReps(n), raised so that the warm-up lasts at least
// settleTime when one repetition takes t seconds of wall-clock time, with
// the barriers the kernel runs around it (IMB's timing leaves them out).
func settledWarmup(n int, t float64) int {
	w := warmupReps(n)
	if t > 0 && float64(w)*t < settleTime {
		w = int(min(settleTime/t+1, 1e7))
	}
	return w
}

// record stores the count every rank runs at iter, rank 0's choice as
// broadcast, so that every rank's schedule agrees.
func (s *schedule) record(iter, n int) {
	s.prev = n
	if len(s.lens) > 0 && iter < len(s.numiters) {
		s.numiters[iter] = n
	}
}
