package report

import (
	"math"

	"github.com/montanaflynn/stats"
)

// Summary is the usual digest of a set of figures, such as the per-rank
// times of a phase or the per-iteration bandwidths of a test.
type Summary struct {
	N      int     // number of figures summarised (NaNs excluded)
	Min    float64 // smallest figure
	Max    float64 // largest figure
	Mean   float64 // arithmetic mean
	Stddev float64 // sample standard deviation (divides by N-1), 0 when N is 1
}

// Summarize digests samples. NaN figures ("not measured") are skipped. The
// standard deviation is the sample one, dividing by N-1 as IOR's and
// mdtest's StdDev columns do, and is 0 for a single figure (mdtest prints 0
// for one iteration). With no figures, N is 0 and every other field is NaN,
// which the writers show as not measured.
func Summarize(samples []float64) Summary {
	vals := make([]float64, 0, len(samples))
	for _, v := range samples {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	nan := math.NaN()
	s := Summary{N: len(vals), Min: nan, Max: nan, Mean: nan, Stddev: nan}
	if len(vals) == 0 {
		return s
	}
	data := stats.Float64Data(vals)
	s.Min = orNaN(data.Min())
	s.Max = orNaN(data.Max())
	s.Mean = orNaN(data.Mean())
	s.Stddev = 0
	if len(vals) > 1 {
		s.Stddev = orNaN(data.StandardDeviationSample())
	}
	return s
}

// orNaN returns v, or NaN when the stats call failed (it fails only on empty
// input, which Summarize has already excluded).
func orNaN(v float64, err error) float64 {
	if err != nil {
		return math.NaN()
	}
	return v
}
