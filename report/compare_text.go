package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The human view's table columns, and how a table wider than the view is
// fitted: the interval left out first, then both ±, then the row and
// metric names shortened to 18 columns, then p left out, the names
// shortened to 12, n left out, and the names shortened to minCell. The figures, delta and the verdict are
// always shown.
var (
	compareHeadings = []string{"row", "metric", "old", "±", "new", "±", "delta", "interval", "p", "n", "verdict"}
	compareFit      = []fitStep{{drop: []int{7}}, {drop: []int{3, 5}}, {shrinkTo: 18}, {drop: []int{8}}, {shrinkTo: 12}, {drop: []int{9}}, {shrinkTo: minCell}}
	compareShrink   = []int{0, 1}
)

// notGated is the note under a view that has a metric without a known
// better direction.
const notGated = "not gated: which way is better is unknown for this metric (a size, a count); it is shown but never fails"

// writeText writes the human view within width columns (0: no limit):
// per group a heading, its parameters and, per table, a table of its
// metrics; then the notes and the gate's verdict.
func (c *Comparison) writeText(b *bytes.Buffer, width int) error {
	para := func(s string) { b.WriteString(wrapWords(s, "  ", width)) }
	para(fmt.Sprintf("old, new: the median ± the half-width of its %s confidence interval", plainPercent(c.Confidence)))
	para("delta: the change of the median, in the interval both medians' intervals allow")
	para(fmt.Sprintf("p: Mann-Whitney U test, significant below alpha %s; a regression fails beyond %s",
		strconv.FormatFloat(c.Alpha, 'g', -1, 64), plainPercent(c.Threshold)))

	var sections []compareSection
	var all [][]string // every table's cells, headings first, for one fit of them all
	var same []string  // metrics left out: no direction, the same on both sides
	gated := true
	for gi, g := range c.Groups {
		for _, name := range tableOrder(g.Metrics) {
			sec := compareSection{group: gi, table: name}
			var ms []MetricDelta
			for _, m := range g.Metrics {
				switch {
				case m.Table != name:
				case m.unchanged():
					if !slices.Contains(same, m.Metric) {
						same = append(same, m.Metric)
					}
				default:
					ms = append(ms, m)
					gated = gated && !m.notGated()
				}
			}
			if len(ms) == 0 {
				continue
			}
			var names []string
			var values [][]string
			sec.common, names, values = splitRows(ms)
			if distinctRows(ms) < 2 {
				// One row: its labels stay in it.
				sec.common, names, values = nil, nil, make([][]string, len(ms))
				for i, m := range ms {
					values[i] = m.rowParts
				}
			}
			sec.headings = append([]string{strings.Join(names, " ")}, compareHeadings[1:]...)
			if sec.headings[0] == "" {
				sec.headings[0] = compareHeadings[0]
			}
			for i, m := range ms {
				cells := m.textCells()
				cells[0] = strings.Join(values[i], " ")
				sec.rows = append(sec.rows, cells)
			}
			all = append(append(all, sec.headings), sec.rows...)
			sections = append(sections, sec)
		}
	}
	fit := fitColumns(cellWidths(compareHeadings, all), width, compareFit, compareShrink)
	var left []string
	for i, keep := range fit.keep {
		if h := compareHeadings[i]; !keep && !slices.Contains(left, h) {
			left = append(left, h)
		}
	}
	if len(left) > 0 {
		para(fmt.Sprintf("left out to fit %d columns: %s (--width 0 shows them)", width, strings.Join(left, ", ")))
	}
	if len(same) > 0 {
		para(fmt.Sprintf("left out as the same on both sides, with no better direction: %s", strings.Join(printables(same), ", ")))
	}

	for gi, g := range c.Groups {
		fmt.Fprintf(b, "\n%s: %d old, %d new archive(s)\n", printable(g.Benchmark), len(g.Old), len(g.New))
		if len(g.Old) == 0 {
			b.WriteString(wrapItems("only in new: ", "  ", printables(g.New), " ", width))
		}
		if len(g.New) == 0 {
			b.WriteString(wrapItems("only in old: ", "  ", printables(g.Old), " ", width))
		}
		if len(g.Params) > 0 {
			b.WriteString(wrapItems("params: ", "  ", paramItems(g.Params), ", ", width))
		}
		for _, sec := range sections {
			if sec.group != gi {
				continue
			}
			t := Table{Name: sec.table}
			for i, h := range sec.headings {
				if fit.keep[i] {
					t.Columns = append(t.Columns, Column{Name: shorten(h, fit.limit[i]), Kind: KindLabel})
				}
			}
			for _, row := range sec.rows {
				var cells []string
				for i, cell := range row {
					if fit.keep[i] {
						cells = append(cells, shorten(cell, fit.limit[i]))
					}
				}
				t.Rows = append(t.Rows, Row{Labels: cells})
			}
			title := strings.Fields(printable(sec.table))
			if len(sec.common) > 0 {
				title[len(title)-1] += ":"
				title = append(title, printables(sec.common)...)
			}
			b.WriteString("\n" + wrapItems("table: ", "  ", title, " ", width))
			if err := writeTextTable(b, &t); err != nil {
				return err
			}
		}
	}
	notes := c.Notes()
	if !gated {
		notes = append(notes, notGated)
	}
	for _, n := range notes {
		b.WriteString("\n")
		para(n)
	}
	fails := c.Failures()
	b.WriteString("\n")
	if len(fails) == 0 {
		para(fmt.Sprintf("no significant regression beyond %s", plainPercent(c.Threshold)))
	} else {
		lacks := ""
		for _, m := range fails {
			if m.Verdict == VerdictOldOnly {
				lacks = ", or metrics NEW lacks"
			}
		}
		para(fmt.Sprintf("%d significant regression(s) beyond %s%s:", len(fails), plainPercent(c.Threshold), lacks))
		// Each named by its table, the row labels its table's rows do
		// not all share, and its metric.
		common := map[string][]string{}
		for _, sec := range sections {
			common[fmt.Sprint(sec.group, "\x00", sec.table)] = sec.common
		}
		for gi, g := range c.Groups {
			for _, m := range g.Metrics {
				if !m.Fails {
					continue
				}
				change := signedPercent(m.Delta)
				if m.Verdict == VerdictOldOnly {
					change = "missing from NEW"
				}
				words := strings.Fields(printable(m.Table))
				for _, p := range m.rowParts {
					if !slices.Contains(common[fmt.Sprint(gi, "\x00", m.Table)], p) {
						words = append(words, printable(p))
					}
				}
				words = append(words, printable(m.Metric)+":", change)
				b.WriteString(wrapItems("  ", "    ", words, " ", width))
			}
		}
	}
	out := trimTrailingSpace(b.Bytes())
	b.Reset()
	b.Write(out)
	return nil
}

// compareSection is one table of one group in the human view: its
// headings (the first names the row labels), its rows' cells and the row
// labels every row has, said once above them.
type compareSection struct {
	group    int
	table    string
	common   []string
	headings []string
	rows     [][]string
}

// splitRows splits the row labels of ms, "name=value" words, into those
// every metric has (IOR's test number, the summary's parameters), in
// order, and the others: their names, the same for every metric, and each
// metric's values. When the names differ between metrics (they do not in
// one table) names is nil and the values are whole words.
func splitRows(ms []MetricDelta) (common, names []string, values [][]string) {
	values = make([][]string, len(ms))
	first := ms[0].rowParts
	same := make([]bool, len(first))
	for i, p := range first {
		same[i] = true
		for _, m := range ms {
			if len(m.rowParts) != len(first) || m.rowParts[i] != p {
				same[i] = false
				break
			}
		}
		if same[i] {
			common = append(common, p)
		}
	}
	named := true
	for j, m := range ms {
		var ns []string
		for i, p := range m.rowParts {
			if i < len(same) && same[i] {
				continue
			}
			name, value, _ := strings.Cut(p, "=")
			ns = append(ns, name)
			values[j] = append(values[j], value)
		}
		if j == 0 {
			names = ns
		}
		named = named && slices.Equal(ns, names)
	}
	if !named {
		for j, m := range ms {
			values[j] = nil
			for i, p := range m.rowParts {
				if i >= len(same) || !same[i] {
					values[j] = append(values[j], p)
				}
			}
		}
		names = nil
	}
	return common, names, values
}

// distinctRows returns the number of rows ms are from.
func distinctRows(ms []MetricDelta) int {
	rows := map[string]bool{}
	for _, m := range ms {
		rows[m.Row] = true
	}
	return len(rows)
}

// unchanged reports whether m has no better direction and every figure
// on both sides the same (a block size, a task count): a row the human view
// leaves out.
func (m MetricDelta) unchanged() bool {
	return m.notGated() && m.allSame
}

// cellWidths returns the width of each column of rows under headings.
func cellWidths(headings []string, rows [][]string) []int {
	w := make([]int, len(headings))
	for i, h := range headings {
		w[i] = displayWidth(h)
	}
	for _, r := range rows {
		for i, cell := range r {
			w[i] = max(w[i], displayWidth(printable(cell)))
		}
	}
	return w
}

// tableOrder returns the tables of ms in order of first appearance.
func tableOrder(ms []MetricDelta) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Table] {
			seen[m.Table] = true
			names = append(names, m.Table)
		}
	}
	return names
}

// printables returns each of ss as printable quotes it.
func printables(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = printable(s)
	}
	return out
}

// Notes returns the warnings about c that a reader should see, one line
// each: the human view prints them under its tables; a caller writing CSV
// or JSON to stdout can send them to stderr.
func (c *Comparison) Notes() []string {
	tooFew := false
	for _, g := range c.Groups {
		for _, m := range g.Metrics {
			tooFew = tooFew || m.Verdict == VerdictTooFew
		}
	}
	if !tooFew {
		return nil
	}
	alpha := strconv.FormatFloat(c.Alpha, 'g', -1, 64)
	if c.MinSamples == 0 {
		return []string{"too few samples: no change can reach p < " + alpha + " with up to 50 samples a side"}
	}
	return []string{fmt.Sprintf("too few samples: no change can reach p < %s with fewer than %d samples a side; pool more archives or iterations",
		alpha, c.MinSamples)}
}

// notGated reports whether m is compared but cannot fail the gate: its
// better direction is unknown.
func (m MetricDelta) notGated() bool {
	return m.Better == "" && m.Old != nil && m.New != nil
}

// textCells returns m's cells in the human table, in compareHeadings'
// order.
func (m MetricDelta) textCells() []string {
	unit := m.Unit
	if m.Display != "" {
		unit = m.Display
	} else {
		unit = autoDisplay(m.Unit, m.Old, m.New)
	}
	scale, ok := displayScale(m.Unit, unit)
	if !ok {
		scale, unit = 1, m.Unit
	}
	var vals []float64
	for _, s := range []*SideStats{m.Old, m.New} {
		if s != nil {
			vals = append(vals, s.Center*scale)
		}
	}
	prec := compactPrecision(precision(unit, vals), vals)
	side := func(s *SideStats) (string, string) {
		if s == nil {
			return "-", ""
		}
		return formatDisplay(s.Center*scale, prec), "±" + s.Spread()
	}
	oc, os := side(m.Old)
	nc, ns := side(m.New)
	delta, interval, p, n := "", "", "", ""
	if m.Old != nil && m.New != nil {
		delta = signedPercent(m.Delta)
		if m.Verdict == VerdictNoise {
			delta = "~"
		}
		if !math.IsNaN(m.DeltaLo) {
			interval = "[" + signedPercent(m.DeltaLo) + ", " + signedPercent(m.DeltaHi) + "]"
		} else {
			interval = "∞"
		}
		p = "p=" + strconv.FormatFloat(m.P, 'f', 3, 64)
		n = "n=" + strconv.Itoa(m.Old.N) + "+" + strconv.Itoa(m.New.N)
	}
	verdict := string(m.Verdict)
	switch {
	case m.Fails:
		verdict += " FAIL"
	case m.Verdict == VerdictRegression:
		verdict += " (within threshold)"
	case m.notGated():
		verdict += " (not gated)"
	}
	return []string{m.Row, heading(m.Metric, unit), oc, os, nc, ns, delta, interval, p, n, verdict}
}

// autoDisplay returns the unit to show a metric stored in unit, with no
// display unit of its own, whose sides are old and new: for seconds,
// bytes and bytes per second, the largest unit in which the larger
// center is at least 1 (0.000004 s as 4.00 us); unit itself for any other.
func autoDisplay(unit string, old, new *SideStats) string {
	var ladder []string
	switch unit {
	case "s":
		ladder = []string{"s", "ms", "us", "ns"}
	case "B", "B/s":
		rate := strings.TrimPrefix(unit, "B")
		for _, u := range []string{"TiB", "GiB", "MiB", "KiB", "B"} {
			ladder = append(ladder, u+rate)
		}
	default:
		return unit
	}
	v := 0.0
	for _, s := range []*SideStats{old, new} {
		if s != nil && !math.IsNaN(s.Center) {
			v = max(v, math.Abs(s.Center))
		}
	}
	if v == 0 {
		return unit
	}
	for _, u := range ladder {
		if scale, _ := displayScale(unit, u); v*scale >= 1 {
			return u
		}
	}
	return ladder[len(ladder)-1]
}

// compactPrecision returns prec, the decimals of vals, cut so that the
// largest value shows at most five digits, or all of its whole part:
// 541200.52 MiB/s as 541201, 1.85 us as 1.85, 1 s as 1.0000.
func compactPrecision(prec int, vals []float64) int {
	v := 0.0
	for _, x := range vals {
		if !math.IsNaN(x) {
			v = max(v, math.Abs(x))
		}
	}
	whole := 0
	if v >= 1 {
		whole = int(math.Floor(math.Log10(v))) + 1
	}
	return min(prec, max(0, 5-whole))
}
