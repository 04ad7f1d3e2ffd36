package plot

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The size of a terminal chart's plot area, in characters, and the width
// its bar charts fit in.
const (
	termCols  = 64
	termRows  = 16
	termWidth = 80
)

// termMarkers mark the series of a terminal line chart in turn.
const termMarkers = "*+ox#@%&=~"

// WriteTerminal draws c as plain text for a terminal, 80 columns wide: a
// line chart on a grid of characters, one marker per series, or a bar
// chart of Unicode blocks, one bar per series in each category. The axes
// are titled with their units and the series listed under the chart.
func WriteTerminal(w io.Writer, c *Chart) error {
	if err := c.validate(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(c.Title + "\n")
	if c.Categories != nil {
		termBars(&b, c)
	} else {
		termLines(&b, c)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// termLines draws a line chart.
func termLines(b *strings.Builder, c *Chart) {
	xmin, xmax, ymin, ymax := c.bounds()
	xs, ys := span{xmin, xmax, c.X.Scale}, span{ymin, ymax, c.Y.Scale}
	nx, ny := 6, 6
	if c.X.Scale == Log2 {
		nx = termCols / 8 // "512 KiB" and a space
	}
	if c.Y.Scale != Linear {
		ny = 8
	}
	xt, yt := xs.ticks(nx), ys.ticks(ny)
	grid := make([][]rune, termRows)
	for i := range grid {
		grid[i] = []rune(strings.Repeat(" ", termCols))
	}
	row := func(y float64) int { return int(math.Round((1 - ys.at(y)) * (termRows - 1))) }
	col := func(x float64) int { return int(math.Round(xs.at(x) * (termCols - 1))) }
	for i, s := range c.Series {
		m := rune(termMarkers[i%len(termMarkers)])
		// The line between points, one character per column, in the
		// axes' (possibly logarithmic) coordinates.
		for j := 1; j < len(s.Points); j++ {
			a, z := s.Points[j-1], s.Points[j]
			ca, cz := col(a.X), col(z.X)
			for k := ca; k <= cz; k++ {
				f := 0.0
				if cz > ca {
					f = float64(k-ca) / float64(cz-ca)
				}
				fy := ys.at(a.Y) + f*(ys.at(z.Y)-ys.at(a.Y))
				grid[int(math.Round((1-fy)*(termRows-1)))][k] = m
			}
		}
		for _, p := range s.Points {
			grid[row(p.Y)][col(p.X)] = m
		}
	}
	labels := make([]string, termRows)
	gutter := 0
	for _, t := range yt {
		if r := row(t.v); !t.minor() && labels[r] == "" {
			labels[r] = t.label
			gutter = max(gutter, len(t.label))
		}
	}
	fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", gutter+1), c.Y.Title()+scaleNote(c.Y.Scale, nil))
	for i, r := range grid {
		sep := '│'
		if labels[i] != "" {
			sep = '┤'
		}
		fmt.Fprintf(b, "%*s %c%s\n", gutter, labels[i], sep, strings.TrimRight(string(r), " "))
	}
	axis := []rune("└" + strings.Repeat("─", termCols))
	under := []rune(strings.Repeat(" ", termCols+len(xt[len(xt)-1].label)+2))
	next := 0
	for _, t := range xt {
		if t.minor() {
			continue
		}
		k := col(t.v)
		axis[k+1] = '┬'
		start := max(k+1-utf8.RuneCountInString(t.label)/2, 0)
		if start < next {
			continue // it would run into the previous label
		}
		copy(under[start:], []rune(t.label))
		next = start + utf8.RuneCountInString(t.label) + 1
	}
	pad := strings.Repeat(" ", gutter+1)
	fmt.Fprintf(b, "%s%s\n%s%s\n", pad, string(axis), pad, strings.TrimRight(string(under), " "))
	fmt.Fprintf(b, "%s%s\n", pad, c.X.Title()+scaleNote(c.X.Scale, nil))
	for i, s := range c.Series {
		fmt.Fprintf(b, "%s%c %s%s\n", pad, termMarkers[i%len(termMarkers)], printable(s.Name), clippedNote(s, ys.hi))
	}
}

// clippedNote says how many of s's points are above top, the y axis's
// top, drawn on it, and the highest's figure.
func clippedNote(s Series, top float64) string {
	n, hi := 0, 0.0
	for _, p := range s.Points {
		if p.Y > top {
			n, hi = n+1, max(hi, p.Y)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d above the top, drawn on it: up to %s)", n, barValue(hi))
}

// termBars draws a bar chart: for each category, one bar per series.
func termBars(b *strings.Builder, c *Chart) {
	top := 0.0
	catWidth, nameWidth := 0, 0
	for _, cat := range c.Categories {
		catWidth = max(catWidth, utf8.RuneCountInString(cat))
	}
	for _, s := range c.Series {
		nameWidth = max(nameWidth, utf8.RuneCountInString(s.Name))
		for _, p := range s.Points {
			top = math.Max(top, p.Y)
		}
	}
	valueWidth := 0
	for _, s := range c.Series {
		for _, p := range s.Points {
			valueWidth = max(valueWidth, len(barValue(p.Y)))
		}
	}
	// The longest bar leaves room for its labels and figure.
	longest := float64(max(termWidth-catWidth-2-nameWidth-2-1-valueWidth, 10))
	length := func(v float64) float64 { return v / top * longest }
	if c.Y.Scale == Log10 {
		// Bars from the decade below the least figure, so that the least
		// is a decade's share long, not a sliver.
		_, _, lo, hi := c.bounds()
		ys := span{lo, hi, Log10}
		ys.ticks(2)
		length = func(v float64) float64 {
			return (math.Log10(v) - math.Log10(ys.lo)) / (math.Log10(top) - math.Log10(ys.lo)) * longest
		}
	}
	fmt.Fprintf(b, "%s\n", c.Y.Title()+scaleNote(c.Y.Scale, nil))
	for k, cat := range c.Categories {
		first := true
		for _, s := range c.Series {
			for _, p := range s.Points {
				if int(p.X) != k {
					continue
				}
				label := ""
				if first {
					label, first = cat, false
				}
				fmt.Fprintf(b, "%s  %s │%s %s\n", padRight(printable(label), catWidth), padRight(printable(s.Name), nameWidth),
					bar(length(p.Y)), barValue(p.Y))
			}
		}
	}
}

// bar returns a bar n characters long, in eighths of a block.
func bar(n float64) string {
	if !(n > 0) {
		return ""
	}
	eighths := max(int(math.Round(n*8)), 1) // a figure above 0 has a bar
	s := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return s
}

// barValue formats a bar's figure with four or five significant digits.
func barValue(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// printable returns s with control characters as '?', so that a name
// stays on its line.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// padRight pads s with spaces to n characters.
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}
