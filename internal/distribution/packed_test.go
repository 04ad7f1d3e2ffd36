package distribution

import (
	"math"
	"testing"
)

// TestPacked sums the vectors of three ranks by hand, as Reduce's Sum
// does, and checks that unpack gives what Hist.Merge and the slots give:
// sums of nanoseconds past 2^53, a rank that recorded nothing, one
// bucket, and NaN steady times.
func TestPacked(t *testing.T) {
	tests := []struct {
		name string
		durs [][]int64 // per rank
	}{
		{"spread", [][]int64{{5, 70, 9000}, {64, 1 << 20}, {3}}},
		{"one bucket", [][]int64{{100}, {100, 100}, {100}}},
		{"an empty rank", [][]int64{{}, {7, 1 << 40}, {1 << 30}}},
		{"past 2^53", [][]int64{{1 << 52, 1<<52 + 1}, {1<<52 + 3}, {1 << 44}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := make([]*Recorder, len(tt.durs))
			var want Hist
			mn, mx := int64(math.MaxInt64), int64(-1)
			for k, ds := range tt.durs {
				r, err := New(DefaultInterval, Steady{})
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range ds {
					r.Lat.Record(d)
					mn, mx = min(mn, d), max(mx, d)
				}
				want.Merge(&r.Lat)
				recs[k] = r
			}
			v := packed{series: 2, ranks: len(recs)}
			if mx >= 0 {
				v.lo = bucket(mn)
				v.buckets = bucket(mx) - v.lo + 1
			}
			var sums []float64
			for k, r := range recs {
				own := Rank{Amount: float64(k + 1), Done: 0.5 * float64(k), SteadyAt: math.NaN()}
				if k == 1 {
					own.SteadyAt = 0.25
				}
				p := v.pack(r, []float64{float64(k), 1}, k, own)
				if sums == nil {
					sums = make([]float64, len(p))
				}
				for i := range p {
					sums[i] += p[i]
				}
			}
			var got Hist
			series, ranks := v.unpack(sums, &got)
			if got.counts != want.counts || got.n != want.n || got.sum != want.sum {
				t.Fatalf("histogram: n %d sum %d, want n %d sum %d (counts equal: %v)", got.n, got.sum, want.n, want.sum, got.counts == want.counts)
			}
			if len(series) != 2 || series[0] != 3 || series[1] != 3 {
				t.Errorf("series %v, want [3 3]", series)
			}
			for k, rk := range ranks {
				if rk.Amount != float64(k+1) || rk.Done != 0.5*float64(k) || (k == 1) != !math.IsNaN(rk.SteadyAt) {
					t.Errorf("rank %d: %+v", k, rk)
				}
			}
		})
	}
}
