package report

import (
	"math"
	"slices"

	"github.com/montanaflynn/stats"
)

// Summary is the usual digest of a set of figures, such as the per-rank
// times of a phase or the per-iteration bandwidths of a test. It is the one
// place hpcbench computes summary statistics: every engine and view takes
// its min, max, mean, standard deviations and percentiles from Summarize.
type Summary struct {
	N       int     // number of figures summarised (NaNs excluded)
	Missing int     // number of NaN figures ("not measured") skipped
	Min     float64 // smallest figure
	Max     float64 // largest figure
	Mean    float64 // arithmetic mean: the sum divided by N

	// Stddev is the sample standard deviation, dividing the sum of
	// squared deviations by N-1: mdtest's "Std Dev" column (mdtest.c's
	// summarize_results_rank0), and 0 for a single figure, as mdtest
	// prints 0 for one iteration.
	Stddev float64
	// StddevPop is the population standard deviation, dividing by N:
	// IOR's two StdDev columns (ior-output.c's bw_ops_values divides by
	// reps, not reps-1). 0 for a single figure.
	StddevPop float64

	// P50, P90 and P99 are percentiles by linear interpolation between
	// the closest ranks (Hyndman and Fan's type 7, the default of NumPy,
	// R and Excel's PERCENTILE.INC): for percent p of the N sorted figures
	// x[0] <= ... <= x[N-1], the rank is r = p/100 * (N-1) and the
	// percentile x[k] + f*(x[k+1]-x[k]) with k = floor(r), f = r-k. So P50
	// is the median, a single figure is every percentile of itself, and
	// the 100th percentile would be Max.
	P50, P90, P99 float64

	// MAD is the median absolute deviation from the median, unscaled: the spread
	// that robust outlier tests use (1.4826 MAD estimates the standard
	// deviation of normal figures, whatever a few outliers do).
	MAD float64
}

// Summarize digests samples without changing them. NaN figures ("not
// measured") are skipped and counted in Missing; every statistic is over
// the N others. With no figures, N is 0 and every statistic is NaN, which
// the writers show as not measured. Infinite figures are summarised as
// they are (a mean or deviation with one is infinite or NaN).
func Summarize(samples []float64) Summary {
	vals := make([]float64, 0, len(samples))
	for _, v := range samples {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	nan := math.NaN()
	s := Summary{N: len(vals), Missing: len(samples) - len(vals),
		Min: nan, Max: nan, Mean: nan, Stddev: nan, StddevPop: nan, P50: nan, P90: nan, P99: nan, MAD: nan}
	if len(vals) == 0 {
		return s
	}
	data := stats.Float64Data(vals)
	// Mean and the deviations sum in the figures' own order, so they are
	// the same to the last bit as the C tools' loops over the same order.
	s.Mean = orNaN(data.Mean())
	s.StddevPop = orNaN(data.StandardDeviationPopulation())
	s.Stddev = 0
	if len(vals) > 1 {
		s.Stddev = orNaN(data.StandardDeviationSample())
	}
	slices.Sort(vals) // once, for the extremes and every percentile
	s.Min, s.Max = vals[0], vals[len(vals)-1]
	s.P50 = orNaN(data.Percentile(50))
	s.P90 = orNaN(data.Percentile(90))
	s.P99 = orNaN(data.Percentile(99))
	s.MAD = orNaN(data.MedianAbsoluteDeviation())
	return s
}

// Strict returns s when no figure was missing, and otherwise s with every
// statistic NaN: the summary of figures in which one unmeasured figure
// makes the whole summary unmeasured, as IOR's and mdtest's summaries over
// repetitions are (their sums carry the missing figure into every column).
// N and Missing are kept.
func (s Summary) Strict() Summary {
	if s.Missing == 0 {
		return s
	}
	nan := math.NaN()
	s.Min, s.Max, s.Mean, s.Stddev, s.StddevPop, s.P50, s.P90, s.P99, s.MAD = nan, nan, nan, nan, nan, nan, nan, nan, nan
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
