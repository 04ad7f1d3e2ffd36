package imb

import (
	"strconv"
	"testing"
)

// TestMeanSecondsShort: a mean made of whole nanoseconds read as float
// seconds prints as its short decimal, as the CSV shows it, where the
// plain quotient of the clock readings carried float noise.
func TestMeanSecondsShort(t *testing.T) {
	base := 1234.567891234 // a clock that has run for a while
	for _, c := range []struct {
		ns   int64
		n    int
		want string
	}{
		{982, 10, "0.0000000982"},
		{14336, 1000, "0.000000014336"},
		{1_500_000_001, 3, "0.5000000003333334"}, // the double nearest 0.5000000003333…,
		{7, 1, "0.000000007"},
	} {
		t0 := base
		t1 := base + float64(c.ns)/1e9
		if got := strconv.FormatFloat(meanSeconds(t1-t0, c.n), 'f', -1, 64); got != c.want {
			t.Errorf("%d ns / %d: %s, want %s", c.ns, c.n, got, c.want)
		}
	}
}

// TestMeanOfMeansShort: IMB's t_avg over ranks' means prints short too.
func TestMeanOfMeansShort(t *testing.T) {
	for _, c := range []struct {
		times []float64
		reps  int
		scale float64
		want  string
	}{
		{[]float64{9.82e-8, 1e-7, 1.1e-7}, 10, 1, "0.00000010273333333333333"}, // the double nearest 102.7333… ns,
		{[]float64{0.1e-6, 0.2e-6}, 100, 0.5, "0.00000015"},
		{[]float64{1.4336e-8, 1.4336e-8}, 1000, 1, "0.000000014336"},
	} {
		if got := strconv.FormatFloat(meanOfMeans(c.times, c.reps, c.scale), 'f', -1, 64); got != c.want {
			t.Errorf("%v × %d reps: %s, want %s", c.times, c.reps, got, c.want)
		}
	}
}
