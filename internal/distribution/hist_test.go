package distribution

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBucketsContiguous: the buckets tile [0, 2^44) without gaps or
// overlaps, and every value falls in the bucket whose bounds hold it.
func TestBucketsContiguous(t *testing.T) {
	next := int64(0)
	for i := range Buckets {
		lo, w := bounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		for _, v := range []int64{lo, lo + w - 1} {
			if b := bucket(v); b != i {
				t.Fatalf("bucket(%d) = %d, want %d", v, b, i)
			}
		}
		next = lo + w
	}
	if next != 1<<maxExp {
		t.Fatalf("buckets end at %d, want 2^%d", next, maxExp)
	}
	if bucket(math.MaxInt64) != Buckets-1 {
		t.Fatalf("bucket(MaxInt64) = %d", bucket(math.MaxInt64))
	}
}

// TestQuantileAccuracy: against exact nearest-rank quantiles of random
// log-normal durations, every quantile is within the bucket resolution.
func TestQuantileAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		gen  func() int64
	}{
		{"lognormal-us", 100000, func() int64 { return int64(math.Exp(rng.NormFloat64()*0.8 + 9)) }},
		{"uniform-small", 5000, func() int64 { return rng.Int64N(200) }},
		{"constant", 10, func() int64 { return 1234567 }},
		{"one", 1, func() int64 { return 42 }},
		{"huge", 100, func() int64 { return 1<<50 + rng.Int64N(1<<40) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Hist
			vals := make([]int64, tc.n)
			for i := range vals {
				vals[i] = tc.gen()
				h.Record(vals[i])
			}
			slices.Sort(vals)
			for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
				k := max(int(math.Ceil(q*float64(len(vals)))), 1) - 1
				want := float64(vals[k]) / 1e9
				got := h.Quantile(q)
				tol := want/64 + 1e-9
				if tc.name == "huge" && q > 0 && q < 1 {
					tol = float64(vals[len(vals)-1]) / 1e9 // the overflow bucket: clamped into [min, max]
				}
				if math.Abs(got-want) > tol {
					t.Errorf("q%g = %g, want %g ± %g", q, got, want, tol)
				}
			}
			if h.N() != uint64(tc.n) {
				t.Errorf("N = %d, want %d", h.N(), tc.n)
			}
		})
	}
}

func TestHistEmptyAndMerge(t *testing.T) {
	var a, b Hist
	if !math.IsNaN(a.Quantile(0.5)) || !math.IsNaN(a.Mean()) {
		t.Fatal("empty histogram has a quantile or a mean")
	}
	for v := int64(1); v <= 100; v++ {
		if v%2 == 0 {
			a.Record(v * 1000)
		} else {
			b.Record(v * 1000)
		}
	}
	b.Record(-5) // a clock stepping back counts as 0
	a.Merge(&b)
	a.Merge(&Hist{})
	if a.N() != 101 || a.Quantile(0) != 0 || a.Quantile(1) != 100e-6 {
		t.Fatalf("merged: N %d min %g max %g", a.N(), a.Quantile(0), a.Quantile(1))
	}
	if got := a.Quantile(0.5); math.Abs(got-50e-6) > 50e-6/64 {
		t.Fatalf("merged median %g, want 50us", got)
	}
}

// BenchmarkRecord is the cost the timed loops pay per operation.
func BenchmarkRecord(b *testing.B) {
	r, err := New(DefaultInterval, Steady{})
	if err != nil {
		b.Fatal(err)
	}
	now := int64(0)
	for b.Loop() {
		now += 1500
		r.Next(now, 4096)
	}
}
