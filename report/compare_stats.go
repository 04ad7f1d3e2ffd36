package report

import (
	"math"

	"golang.org/x/perf/benchmath"
)

// compareConfidence is the confidence level of the intervals compare
// prints around each side's center, as benchstat's.
const compareConfidence = 0.95

// SideStats summarises one side's samples of a metric: their number, the
// center (the median) and the confidence interval of the center at
// compareConfidence. Lo and Hi are infinite when there are too few samples
// for a finite interval (written as null in JSON).
type SideStats struct {
	N      int     `json:"n"`
	Center float64 `json:"center"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// Spread returns the half-width of the confidence interval as a percentage
// of the center, as benchstat prints it ("5%", "∞" without a finite
// interval, "?" when the interval crosses zero).
func (s SideStats) Spread() string {
	return benchmath.Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi}.PctRangeString()
}

// statTest is the one place compare does statistics, all of it through
// benchmath's non-parametric assumption: the median with its confidence
// interval for each side, and the Mann–Whitney U test between them.
type statTest struct {
	thresholds benchmath.Thresholds
}

// newStatTest returns a statTest rejecting the null hypothesis below alpha.
func newStatTest(alpha float64) statTest {
	return statTest{thresholds: benchmath.Thresholds{CompareAlpha: alpha}}
}

// sample returns vals (NaNs dropped, copied: benchmath sorts in place) as a
// benchmath sample.
func (st statTest) sample(vals []float64) *benchmath.Sample {
	clean := make([]float64, 0, len(vals))
	for _, v := range vals {
		if !math.IsNaN(v) {
			clean = append(clean, v)
		}
	}
	return benchmath.NewSample(clean, &st.thresholds)
}

// summary returns the center and confidence interval of s.
func (st statTest) summary(s *benchmath.Sample) SideStats {
	sum := benchmath.AssumeNothing.Summary(s, compareConfidence)
	return SideStats{N: len(s.Values), Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi}
}

// decidable reports whether samples of sizes n1 and n2 can show a
// difference at all: whether the U test of two samples of those sizes that
// do not overlap, the most different they can be, rejects the null
// hypothesis. Below that size every comparison is "too few samples".
func (st statTest) decidable(n1, n2 int) bool {
	if n1 == 0 || n2 == 0 {
		return false
	}
	a := make([]float64, n1)
	b := make([]float64, n2)
	for i := range a {
		a[i] = float64(i)
	}
	for i := range b {
		b[i] = float64(n1 + i)
	}
	return st.pValue(st.sample(a), st.sample(b)) < st.thresholds.CompareAlpha
}

// minSamples returns the smallest n for which n samples a side are
// decidable, or 0 when even 50 a side are not (an alpha that small).
func (st statTest) minSamples() int {
	for n := 1; n <= 50; n++ {
		if st.decidable(n, n) {
			return n
		}
	}
	return 0
}

// pValue returns the U test's p-value for old against new: 1 when every
// figure on both sides is the same (the test has nothing to rank).
func (st statTest) pValue(old, new *benchmath.Sample) float64 {
	if allEqual(old.Values, new.Values) {
		return 1
	}
	return benchmath.AssumeNothing.Compare(old, new).P
}

// allEqual reports whether every value of a and b is the same number.
func allEqual(a, b []float64) bool {
	all := append(append([]float64(nil), a...), b...)
	for _, v := range all {
		if v != all[0] {
			return false
		}
	}
	return true
}
