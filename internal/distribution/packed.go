package distribution

// packed lays out the one float64 vector Reduce sums over the ranks:
//
//	[0, buckets)              the histogram's counts from bucket lo on
//	buckets + 0, 1, 2         the count, the sum's low and high 32 bits
//	then series               the amounts per interval
//	then 3 per rank           Amount, Done, SteadyAt in the rank's slot
//
// Every rank agrees on the layout from the Allreduce before it. A sum of
// integers stays exact in a float64 below 2^53: a bucket's count and the
// job's count of durations do, and the sum of nanoseconds goes in two
// halves of 32 bits, each summed over fewer than 2^21 ranks. The slots of
// the other ranks hold zeros, and x + 0 is x (NaN included).
type packed struct {
	lo, buckets int // the first occupied bucket and how many from it
	series      int // intervals in the series
	ranks       int // ranks in the job
}

// pack returns this rank's vector: its histogram, its series (of v.series
// intervals, already on the job's interval) and own in the slot of rank.
func (v packed) pack(r *Recorder, series []float64, rank int, own Rank) []float64 {
	out := make([]float64, v.buckets+3+v.series+3*v.ranks)
	for i := range v.buckets {
		out[i] = float64(r.Lat.counts[v.lo+i])
	}
	h := out[v.buckets:]
	h[0], h[1], h[2] = float64(r.Lat.n), float64(r.Lat.sum&(1<<32-1)), float64(r.Lat.sum>>32)
	copy(h[3:], series)
	slot := h[3+v.series+3*rank:]
	slot[0], slot[1], slot[2] = own.Amount, own.Done, own.SteadyAt
	return out
}

// unpack reads the summed vector into lat's counts, count and sum, and
// returns the series and every rank's figures.
func (v packed) unpack(sums []float64, lat *Hist) ([]float64, []Rank) {
	for i := range v.buckets {
		lat.counts[v.lo+i] = uint64(sums[i])
	}
	h := sums[v.buckets:]
	lat.n = uint64(h[0])
	lat.sum = uint64(h[1]) + uint64(h[2])<<32
	series := append([]float64(nil), h[3:3+v.series]...)
	s := h[3+v.series:]
	ranks := make([]Rank, v.ranks)
	for i := range ranks {
		ranks[i] = Rank{Amount: s[3*i], Done: s[3*i+1], SteadyAt: s[3*i+2]}
	}
	return series, ranks
}
