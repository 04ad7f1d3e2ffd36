package distribution

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
)

// Job is one phase's figures over the whole job, reduced from every
// rank's Recorder.
type Job struct {
	// Lat holds every rank's latencies.
	Lat Hist
	// Interval is the series' interval (the longest any rank reached,
	// when a long phase doubled some ranks' intervals).
	Interval time.Duration
	// Series is the amount done in each interval from the phase's start,
	// summed over the ranks; the last one may be shorter (see End).
	Series []float64
	// End is when the last rank ended the phase, in seconds since the
	// phase's start.
	End float64
	// Ranks holds every rank's own figures, indexed by rank.
	Ranks []Rank
	// Steady is the test the phase ran (zero for none).
	Steady Steady
}

// Rank is one rank's figures in a phase.
type Rank struct {
	Amount float64 // amount done
	Done   float64 // seconds from the phase's start to this rank's end
	// SteadyAt is when the steady test passed on this rank, in seconds
	// since the phase's start; NaN when it did not.
	SteadyAt float64
}

// Reduce gathers every rank's Recorder into the job's figures, which only
// rank 0 gets (nil on the others). It is collective; every rank calls it
// after Done, in the same order with respect to the other collectives.
// Values travel in the machine's byte order, as collectives reduces them.
//
// It costs two collectives, whatever the job's size: an Allreduce of the
// extremes, then one Reduce of a single float64 vector that holds the
// histogram's occupied buckets, its count and sum, the series, and every
// rank's own figures in that rank's slot (the others add zeros, so the sum
// is the gather). On a host crowded with ranks every collective costs
// milliseconds (a barrier of 256 ranks on 2 CPUs takes 6 ms), and IMB's
// tables run this once per size. Every value it sums stays exact in a
// float64: counts below 2^53, the sum of nanoseconds in two 32-bit halves.
func Reduce(ctx context.Context, c *collectives.Comm, r *Recorder) (*Job, error) {
	own := r.ownSeries()
	// 1. The longest interval and series, the last end, the extremes
	// (which bound the occupied buckets).
	mn := int64(math.MinInt64)
	if r.Lat.n > 0 {
		mn = -r.Lat.min
	}
	// The series' length goes in nanoseconds: ranks whose long phase
	// doubled their interval count intervals of another length.
	hi, err := allreduceInt64(ctx, c, collectives.Max, []int64{r.iv, int64(len(own)) * r.iv, r.end, r.Lat.max, mn})
	if err != nil {
		return nil, fmt.Errorf("reducing the distributions: %w", err)
	}
	iv := hi[0]
	series := rebin(own, r.iv, iv)
	n := int((hi[1] + iv - 1) / iv)
	series = append(series, make([]float64, max(0, n-len(series)))...)
	// 2. One vector summed on rank 0.
	v := packed{series: n, ranks: c.Size()}
	if hi[4] != math.MinInt64 { // some rank recorded a duration
		v.lo = bucket(-hi[4])
		v.buckets = bucket(hi[3]) - v.lo + 1
	}
	at := math.NaN()
	if ns, ok := r.SteadyAt(); ok {
		at = float64(ns) / 1e9
	}
	sums, err := reduceFloat64(ctx, c, v.pack(r, series, c.Rank(), Rank{Amount: r.total, Done: float64(r.end) / 1e9, SteadyAt: at}))
	if err != nil {
		return nil, fmt.Errorf("reducing the latency histogram, the time series and the per-rank figures: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	j := &Job{Interval: time.Duration(iv), End: float64(hi[2]) / 1e9, Steady: r.steady}
	j.Series, j.Ranks = v.unpack(sums, &j.Lat)
	if j.Lat.n > 0 {
		j.Lat.max, j.Lat.min = hi[3], -hi[4]
	}
	return j, nil
}

// ownSeries returns this rank's amounts per interval, the interval in
// progress at Done included when anything fell in it or time passed in it.
func (r *Recorder) ownSeries() []float64 {
	s := r.series
	if r.cur != 0 || r.end > int64(len(r.series))*r.iv {
		s = append(s[:len(s):len(s)], r.cur)
	}
	return s
}

// rebin merges a series of interval from into one of interval to, a
// power-of-two multiple of it.
func rebin(s []float64, from, to int64) []float64 {
	f := int(to / from)
	if f <= 1 {
		return append([]float64(nil), s...)
	}
	out := make([]float64, (len(s)+f-1)/f)
	for i, v := range s {
		out[i/f] += v
	}
	return out
}

func allreduceInt64(ctx context.Context, c *collectives.Comm, op collectives.Op, v []int64) ([]int64, error) {
	send := encodeInt64(v)
	recv := make([]byte, len(send))
	if err := c.Allreduce(ctx, send, recv, collectives.Int64, op); err != nil {
		return nil, err
	}
	return decodeInt64(recv), nil
}

func reduceFloat64(ctx context.Context, c *collectives.Comm, v []float64) ([]float64, error) {
	send := encodeFloat64(v)
	recv := make([]byte, len(send))
	if len(send) == 0 {
		return nil, nil
	}
	if err := c.Reduce(ctx, send, recv, collectives.Float64, collectives.Sum, 0); err != nil {
		return nil, err
	}
	return decodeFloat64(recv), nil
}

func encodeInt64(v []int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.NativeEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func decodeInt64(b []byte) []int64 {
	v := make([]int64, len(b)/8)
	for i := range v {
		v[i] = int64(binary.NativeEndian.Uint64(b[8*i:]))
	}
	return v
}

func encodeFloat64(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.NativeEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func decodeFloat64(b []byte) []float64 {
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.NativeEndian.Uint64(b[8*i:]))
	}
	return v
}
