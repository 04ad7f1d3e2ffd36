package report

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"none", nil, Summary{N: 0, Min: nan, Max: nan, Mean: nan, Stddev: nan}},
		{"only NaN", []float64{nan, nan}, Summary{N: 0, Min: nan, Max: nan, Mean: nan, Stddev: nan}},
		{"one", []float64{3}, Summary{N: 1, Min: 3, Max: 3, Mean: 3, Stddev: 0}},
		// Sample stddev of 2,4,4,4,5,5,7,9: mean 5, squares sum 32, 32/7.
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, Summary{N: 8, Min: 2, Max: 9, Mean: 5, Stddev: math.Sqrt(32.0 / 7)}},
		{"NaN skipped", []float64{nan, 1, 3, nan}, Summary{N: 2, Min: 1, Max: 3, Mean: 2, Stddev: math.Sqrt2}},
		// mdtest's Directory creation row: two iterations.
		{"mdtest", []float64{8371.547, 7112.163}, Summary{N: 2, Min: 7112.163, Max: 8371.547, Mean: 7741.855, Stddev: 890.519}},
	}
	same := func(a, b float64) bool {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.IsNaN(a) && math.IsNaN(b)
		}
		return math.Abs(a-b) <= 1e-3*math.Max(1, math.Abs(b))
	}
	for _, tt := range tests {
		got := Summarize(tt.in)
		if got.N != tt.want.N || !same(got.Min, tt.want.Min) || !same(got.Max, tt.want.Max) ||
			!same(got.Mean, tt.want.Mean) || !same(got.Stddev, tt.want.Stddev) {
			t.Errorf("%s: Summarize(%v) = %+v, want %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	in := []float64{3, 1, 2}
	Summarize(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("Summarize reordered its input: %v", in)
	}
}
