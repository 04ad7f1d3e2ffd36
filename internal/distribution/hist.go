package distribution

import (
	"math"
	"math/bits"
)

// subBits sets the histogram's resolution: every power of two is split
// into 1<<subBits buckets of equal width, so a bucket's midpoint is within
// 1/(2<<subBits) (1.6%) of any value in it.
const subBits = 5

const sub = 1 << subBits

// maxExp is the largest power of two with buckets of its own: values from
// 2^44 ns (4.9 hours) up fall in the last bucket, and Max still holds them
// exactly.
const maxExp = 44

// Buckets is the number of buckets in a Hist.
const Buckets = (maxExp - subBits + 1) * sub

// Hist is a log-linear histogram of durations in nanoseconds, with exact
// count, sum, minimum and maximum. Its zero value is empty and ready to use.
type Hist struct {
	counts   [Buckets]uint64
	n        uint64
	sum      uint64
	min, max int64
}

// bucket returns the index of the bucket that holds v >= 0.
func bucket(v int64) int {
	if v < 2*sub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - subBits - 1 // v>>e is in [sub, 2*sub)
	i := (e+1)*sub + int(v>>uint(e)) - sub
	if i >= Buckets {
		return Buckets - 1
	}
	return i
}

// bounds returns the smallest value of bucket i and the bucket's width.
func bounds(i int) (lo, width int64) {
	if i < 2*sub {
		return int64(i), 1
	}
	e := i/sub - 1
	return int64(sub+i%sub) << uint(e), 1 << uint(e)
}

// Record adds one duration of ns nanoseconds; a negative one (a clock
// stepped back) counts as 0.
func (h *Hist) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	if h.n == 0 || ns < h.min {
		h.min = ns
	}
	if ns > h.max {
		h.max = ns
	}
	h.counts[bucket(ns)]++
	h.n++
	h.sum += uint64(ns)
}

// N returns the number of durations recorded.
func (h *Hist) N() uint64 { return h.n }

// Merge adds o's durations to h.
func (h *Hist) Merge(o *Hist) {
	if o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
}

// Quantile returns the q-quantile (0 <= q <= 1) in seconds by the nearest-
// rank method: the smallest recorded duration that at least q of them do
// not exceed, as the midpoint of its bucket (within 1.6% of the value) and
// never outside [min, max]. Quantile(1) is the exact maximum, Quantile(0)
// the exact minimum; an empty Hist gives NaN.
func (h *Hist) Quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	switch {
	case q <= 0:
		return float64(h.min) / 1e9
	case q >= 1:
		return float64(h.max) / 1e9
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen < rank {
			continue
		}
		lo, w := bounds(i)
		v := lo + (w-1)/2
		if i == Buckets-1 {
			v = h.max
		}
		v = min(max(v, h.min), h.max)
		return float64(v) / 1e9
	}
	return float64(h.max) / 1e9
}

// Mean returns the mean duration in seconds, NaN when empty.
func (h *Hist) Mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return float64(h.sum) / float64(h.n) / 1e9
}
