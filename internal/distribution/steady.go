package distribution

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultSteady is --until-steady's value when it is given without one:
// warp's --autoterm defaults (10 s within 7.5%), which fio's steadystate
// users also reach for.
const DefaultSteady = "10s,7.5%"

// Steady is the test behind --until-steady=WINDOW,TOLERANCE: a phase is
// steady once each of the intervals in the last Window moved within
// Tolerance of their mean (fio's steadystate "bw:" and "iops:" criteria,
// warp's --autoterm).
type Steady struct {
	Window    time.Duration // the sliding window; 0 means the test is off
	Tolerance float64       // the largest relative deviation from the mean, 0.05 for 5%
}

// On reports whether the test is asked for.
func (s Steady) On() bool { return s.Window > 0 }

// String gives s as --until-steady takes it ("10s,7.5%").
func (s Steady) String() string {
	if !s.On() {
		return ""
	}
	return s.Window.String() + "," + strconv.FormatFloat(s.Tolerance*100, 'g', -1, 64) + "%"
}

// ParseSteady parses --until-steady's value: WINDOW,TOLERANCE as in
// "10s,5%" (a Go duration, then a percentage with or without the %), or
// "" for DefaultSteady.
func ParseSteady(v string) (Steady, error) {
	if v == "" {
		v = DefaultSteady
	}
	w, tol, ok := strings.Cut(v, ",")
	if !ok {
		return Steady{}, fmt.Errorf("--until-steady %q: want WINDOW,TOLERANCE as in %q", v, DefaultSteady)
	}
	d, err := time.ParseDuration(strings.TrimSpace(w))
	if err != nil || d <= 0 || d > 24*time.Hour {
		return Steady{}, fmt.Errorf("--until-steady %q: window %q is not a duration in (0, 24h] such as 10s", v, w)
	}
	p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(tol), "%"), 64)
	if err != nil || !(p > 0 && p < 100) {
		return Steady{}, fmt.Errorf("--until-steady %q: tolerance %q is not a percentage in (0, 100) such as 5%%", v, tol)
	}
	return Steady{Window: d, Tolerance: p / 100}, nil
}

// Intervals returns how many intervals of length iv make the window, or
// an error naming both flags when that is fewer than 2 (one interval is
// always steady) or more than MaxIntervals.
func (s Steady) Intervals(iv time.Duration) (int, error) {
	if !s.On() {
		return 0, nil
	}
	k := int(math.Ceil(float64(s.Window) / float64(iv)))
	if k < 2 {
		return 0, fmt.Errorf("--until-steady window %v must span at least 2 intervals of --interval %v", s.Window, iv)
	}
	if k > MaxIntervals {
		return 0, fmt.Errorf("--until-steady window %v spans %d intervals of --interval %v; at most %d", s.Window, k, iv, MaxIntervals)
	}
	return k, nil
}

// steadyOver reports whether each of vals lies within tol of their mean,
// and the mean is above 0 (an idle window is not a steady one).
func steadyOver(vals []float64, tol float64) bool {
	var sum float64
	for _, v := range vals {
		sum += v
	}
	mean := sum / float64(len(vals))
	if !(mean > 0) {
		return false
	}
	for _, v := range vals {
		if math.Abs(v-mean) > tol*mean {
			return false
		}
	}
	return true
}
