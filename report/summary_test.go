package report

import (
	"math"
	"strconv"
	"testing"
)

// sameFigure reports whether a and b agree to 1e-9 relative (or absolute
// below 1), NaN matching only NaN.
func sameFigure(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

// sameSummary reports whether every field of got matches want.
func sameSummary(got, want Summary) bool {
	return got.N == want.N && got.Missing == want.Missing &&
		sameFigure(got.Min, want.Min) && sameFigure(got.Max, want.Max) && sameFigure(got.Mean, want.Mean) &&
		sameFigure(got.Stddev, want.Stddev) && sameFigure(got.StddevPop, want.StddevPop) &&
		sameFigure(got.P50, want.P50) && sameFigure(got.P90, want.P90) && sameFigure(got.P99, want.P99)
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	none := Summary{Min: nan, Max: nan, Mean: nan, Stddev: nan, StddevPop: nan, P50: nan, P90: nan, P99: nan}
	onlyNaN := none
	onlyNaN.Missing = 2
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"empty", nil, none},
		{"only NaN", []float64{nan, nan}, onlyNaN},
		// A single figure: both deviations 0 (mdtest prints 0 for one
		// iteration, IOR divides 0 by 1), every percentile the figure.
		{"one", []float64{3}, Summary{N: 1, Min: 3, Max: 3, Mean: 3, Stddev: 0, StddevPop: 0, P50: 3, P90: 3, P99: 3}},
		// 2,4,4,4,5,5,7,9: mean 5, squared deviations sum to 32: sample
		// sqrt(32/7), population sqrt(32/8) = 2. Ranks p/100*7: p50 3.5
		// between 4 and 5, p90 6.3 between 7 and 9, p99 6.93.
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, Summary{N: 8, Min: 2, Max: 9, Mean: 5,
			Stddev: math.Sqrt(32.0 / 7), StddevPop: 2, P50: 4.5, P90: 7 + 0.3*2, P99: 7 + 0.93*2}},
		// Unsorted input: 9,1,5 sorts to 1,5,9; squares 16+16+0 = 32,
		// sample sqrt(32/2) = 4, population sqrt(32/3); ranks p/100*2.
		{"unsorted", []float64{9, 1, 5}, Summary{N: 3, Min: 1, Max: 9, Mean: 5,
			Stddev: 4, StddevPop: math.Sqrt(32.0 / 3), P50: 5, P90: 5 + 0.8*4, P99: 5 + 0.98*4}},
		// NaNs are skipped and counted: 1 and 3 remain, squares 1+1.
		{"NaN skipped", []float64{nan, 1, 3, nan}, Summary{N: 2, Missing: 2, Min: 1, Max: 3, Mean: 2,
			Stddev: math.Sqrt2, StddevPop: 1, P50: 2, P90: 1 + 0.9*2, P99: 1 + 0.99*2}},
		// mdtest's Directory creation row, two iterations 1259.384 apart:
		// population deviation half the gap, sample the gap over sqrt 2.
		{"mdtest", []float64{8371.547, 7112.163}, Summary{N: 2, Min: 7112.163, Max: 8371.547, Mean: 7741.855,
			Stddev: 1259.384 / math.Sqrt2, StddevPop: 629.692, P50: 7741.855,
			P90: 7112.163 + 0.9*1259.384, P99: 7112.163 + 0.99*1259.384}},
		// All equal: no deviation, every percentile the value.
		{"equal", []float64{0.25, 0.25, 0.25, 0.25}, Summary{N: 4, Min: 0.25, Max: 0.25, Mean: 0.25,
			Stddev: 0, StddevPop: 0, P50: 0.25, P90: 0.25, P99: 0.25}},
	}
	for _, tt := range tests {
		if got := Summarize(tt.in); !sameSummary(got, tt.want) {
			t.Errorf("%s: Summarize(%v) =\n %+v, want\n %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestSummarizeMAD: the median absolute deviation, about the median, and
// one outlier does not move it.
func TestSummarizeMAD(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 0.5}, // median 4.5: deviations .5 .5 .5 .5 .5 2.5 2.5 4.5
		{[]float64{10, 10, 11, 9, 1000}, 1},      // median 10: deviations 0 0 1 1 990
		{[]float64{3}, 0},                        // a single figure
		{[]float64{math.NaN(), 1, 3}, 1},         // NaN skipped: median 2
	} {
		if got := Summarize(tc.in).MAD; got != tc.want {
			t.Errorf("MAD of %v = %g, want %g", tc.in, got, tc.want)
		}
	}
	if got := Summarize(nil).MAD; !math.IsNaN(got) {
		t.Errorf("MAD of nothing = %g, want NaN", got)
	}
	if got := Summarize([]float64{1, math.NaN()}).Strict().MAD; !math.IsNaN(got) {
		t.Errorf("strict MAD with a missing figure = %g, want NaN", got)
	}
}

func TestSummaryStrict(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	allNaN := func(n, missing int) Summary {
		return Summary{N: n, Missing: missing, Min: nan, Max: nan, Mean: nan, Stddev: nan, StddevPop: nan, P50: nan, P90: nan, P99: nan}
	}
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"complete", []float64{1, 3}, Summary{N: 2, Min: 1, Max: 3, Mean: 2, Stddev: math.Sqrt2, StddevPop: 1,
			P50: 2, P90: 2.8, P99: 2.98}},
		{"one missing", []float64{1, nan, 3}, allNaN(2, 1)},
		{"empty", nil, allNaN(0, 0)},
		{"only NaN", []float64{nan}, allNaN(0, 1)},
	}
	for _, tt := range tests {
		if got := Summarize(tt.in).Strict(); !sameSummary(got, tt.want) {
			t.Errorf("%s: Summarize(%v).Strict() =\n %+v, want\n %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	in := []float64{3, math.NaN(), 1, 2}
	Summarize(in)
	if in[0] != 3 || !math.IsNaN(in[1]) || in[2] != 1 || in[3] != 2 {
		t.Errorf("Summarize changed its input: %v", in)
	}
}

// BenchmarkSummarize measures Summarize on per-rank sized inputs and on
// the per-operation latency sets the distributions tables summarise.
func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{16, 1000, 1000000} {
		in := make([]float64, n)
		x := uint64(0x9e3779b97f4a7c15)
		for i := range in {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			in[i] = float64(x>>11) / (1 << 53)
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				Summarize(in)
			}
		})
	}
}
