package plot

import (
	"math"
	"strconv"
)

// tick is one labelled position on an axis, in figures.
type tick struct {
	v     float64
	label string
}

// span maps an axis's figures in [lo, hi] onto positions in [0, 1].
type span struct {
	lo, hi float64
	scale  Scale
}

// at returns the position of v, 0 at lo and 1 at hi.
func (s span) at(v float64) float64 {
	f := func(x float64) float64 { return x }
	switch s.scale {
	case Log2:
		f = math.Log2
	case Log10:
		f = math.Log10
	}
	pos := (f(v) - f(s.lo)) / (f(s.hi) - f(s.lo))
	if math.IsNaN(pos) || math.IsInf(pos, 0) {
		return 0.5 // a span too narrow for float64 to tell its ends apart
	}
	return min(max(pos, 0), 1)
}

// ticks returns about n labelled positions for the span, and widens the
// span to the outer ticks of a linear or log 10 scale so that the axis
// ends on a label.
func (s *span) ticks(n int) []tick {
	switch s.scale {
	case Log2:
		return logTicks(s, 2, n, sizeLabel)
	case Log10:
		return logTicks(s, 10, n, func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) })
	}
	step := niceStep((s.hi - s.lo) / float64(max(n-1, 1)))
	lo, hi := math.Floor(s.lo/step+1e-9)*step, math.Ceil(s.hi/step-1e-9)*step
	count := math.Round((hi - lo) / step)
	if !(count >= 1 && count <= float64(2*n)) || lo+step == lo {
		// Too narrow a span for its magnitude: label its ends.
		return []tick{{s.lo, strconv.FormatFloat(s.lo, 'g', 6, 64)}, {s.hi, strconv.FormatFloat(s.hi, 'g', 6, 64)}}
	}
	s.lo, s.hi = lo, hi
	out := make([]tick, 0, int(count)+1)
	for k := 0; k <= int(count); k++ {
		r := lo + float64(k)*step
		if math.Abs(r) < step/1e6 {
			r = 0
		}
		out = append(out, tick{r, linearLabel(r, step)})
	}
	return out
}

// logTicks returns the powers of base in the span, every k-th of them so
// that there are at most n; it widens the span to whole powers.
func logTicks(s *span, base float64, n int, label func(float64) string) []tick {
	lg := func(v float64) float64 { return math.Log(v) / math.Log(base) }
	e0, e1 := math.Floor(lg(s.lo)+1e-9), math.Ceil(lg(s.hi)-1e-9)
	if e1 <= e0 {
		e1 = e0 + 1
	}
	// The powers of base a float64 holds are between about 2^-1074 and
	// 2^1023; validate has kept out values that are not positive.
	e0, e1 = max(e0, math.Ceil(lg(math.SmallestNonzeroFloat64))), min(e1, math.Floor(lg(math.MaxFloat64)))
	s.lo, s.hi = math.Pow(base, e0), math.Pow(base, e1)
	k := 1.0
	for (e1-e0)/k+1 > float64(n) {
		k *= 2
	}
	var out []tick
	for e := e0; e <= e1; e += k {
		v := math.Pow(base, e)
		out = append(out, tick{v, label(v)})
	}
	return out
}

// niceStep returns 1, 2, 2.5 or 5 times a power of ten, the smallest not
// below raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// linearLabel formats v with as many decimals as step needs.
func linearLabel(v, step float64) string {
	dec := 0
	for ; dec < 12; dec++ {
		scaled := step * math.Pow(10, float64(dec))
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*scaled {
			break
		}
	}
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// sizeLabel formats a power-of-2 size in bytes as IMB users read it: 512,
// 1K, 64K, 4M, 1G.
func sizeLabel(v float64) string {
	for _, u := range []struct {
		suffix string
		size   float64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if v >= u.size {
			return strconv.FormatFloat(v/u.size, 'g', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
