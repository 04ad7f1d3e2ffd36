package plot

import (
	"math"
	"strconv"
)

// tick is one position on an axis, in figures: labelled, or a minor
// tick (label "") between labelled ones.
type tick struct {
	v     float64
	label string
}

// minor reports whether t is a minor tick.
func (t tick) minor() bool { return t.label == "" }

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

// ticks returns at most n labelled positions for the span, and minor
// ones between them on a log scale, and widens the span to the outer
// ticks of a linear scale, or to whole powers of a log one, so that the
// axis ends on a label.
func (s *span) ticks(n int) []tick {
	switch s.scale {
	case Log2:
		return log2Ticks(s, n)
	case Log10:
		return log10Ticks(s, n)
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

// powers returns the exponents of the whole powers of base around the
// span, at least one apart, within what a float64 holds, and widens the
// span to them.
func powers(s *span, base float64) (e0, e1 float64) {
	lg := func(v float64) float64 { return math.Log(v) / math.Log(base) }
	e0, e1 = math.Floor(lg(s.lo)+1e-9), math.Ceil(lg(s.hi)-1e-9)
	if e1 <= e0 {
		e1 = e0 + 1
	}
	// The powers of base a float64 holds are between about 2^-1074 and
	// 2^1023; validate has kept out values that are not positive.
	e0, e1 = max(e0, math.Ceil(lg(math.SmallestNonzeroFloat64))), min(e1, math.Floor(lg(math.MaxFloat64)))
	s.lo, s.hi = math.Pow(base, e0), math.Pow(base, e1)
	return e0, e1
}

// maxMinor bounds the minor ticks of an axis: beyond it they would be a
// grey fill, not ticks.
const maxMinor = 200

// log2Ticks labels every k-th power of 2 in the span, k the least power
// of 2 that keeps the labels to n, in bytes (sizeLabel), with a minor
// tick at each power between.
func log2Ticks(s *span, n int) []tick {
	e0, e1 := powers(s, 2)
	k := 1.0
	for (e1-e0)/k+1 > float64(n) {
		k *= 2
	}
	var out []tick
	for e := e0; e <= e1; e++ {
		v := math.Pow(2, e)
		switch {
		case math.Mod(e-e0, k) == 0:
			out = append(out, tick{v, sizeLabel(v)})
		case e1-e0 <= maxMinor:
			out = append(out, tick{v: v})
		}
	}
	return out
}

// log10Ticks labels the span's powers of 10 and, when n leaves room,
// the 2 and 5 times them between (a reader can then tell 300 from 700);
// with less room every decade, or every k-th, is labelled. The other
// whole multiples of each labelled decade are minor ticks.
func log10Ticks(s *span, n int) []tick {
	e0, e1 := powers(s, 10)
	decades := e1 - e0
	k := 1.0
	for decades/k+1 > float64(n) {
		k *= 2
	}
	oneTwoFive := 3*decades+1 <= float64(n)
	var out []tick
	for e := e0; e <= e1; e++ {
		p := math.Pow(10, e)
		if math.Mod(e-e0, k) != 0 {
			if decades <= maxMinor {
				out = append(out, tick{v: p})
			}
			continue
		}
		out = append(out, tick{p, shortFigure(p)})
		if e == e1 || k > 1 || decades*8 > maxMinor {
			continue
		}
		for m := 2.0; m <= 9; m++ {
			if oneTwoFive && (m == 2 || m == 5) {
				out = append(out, tick{m * p, shortFigure(m * p)})
			} else {
				out = append(out, tick{v: m * p})
			}
		}
	}
	return out
}

// shortFigure formats a figure to 3 digits in at most 5 characters or so,
// for a log axis's labels and a bar's: 0.002, 50, 2000, 50k, 2M.
func shortFigure(v float64) string { return figureDigits(v, 3) }

// figureDigits formats v as shortFigure does, to digits significant
// digits.
func figureDigits(v float64, digits int) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	for _, u := range []struct {
		suffix string
		size   float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e4}} {
		if r >= u.size && r < 1e12 {
			if u.suffix == "k" {
				u.size = 1e3
			}
			return strconv.FormatFloat(r/u.size, 'f', -1, 64) + u.suffix
		}
	}
	if r < 1e-4 || r >= 1e12 {
		return strconv.FormatFloat(r, 'g', digits, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
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

// sizeLabel formats a size in bytes as a person reads it: 512 B, 1 KiB,
// 64 KiB, 4 MiB.
func sizeLabel(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for ; i < len(units)-1 && v >= 1024; i++ {
		v /= 1024
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " " + units[i]
}
