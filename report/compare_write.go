package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteCompare renders c in format f: FormatText for people (benchstat's
// layout), FormatCSV one record per metric, FormatJSON the whole model.
func WriteCompare(w io.Writer, c *Comparison, f Format) error {
	var b bytes.Buffer
	var err error
	switch f {
	case FormatText:
		err = c.writeText(&b)
	case FormatCSV:
		err = c.writeCSV(&b)
	case FormatJSON:
		err = c.writeJSON(&b)
	default:
		return fmt.Errorf("report: writing comparison: unknown format %v", f)
	}
	if err != nil {
		return fmt.Errorf("report: writing comparison: %w", err)
	}
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing comparison: %w", err)
	}
	return nil
}

// percent formats a fraction as a signed percentage, "?" for NaN.
func percent(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return formatDisplay(100*v, 2) + "%"
}

// plainPercent formats a fraction as a percentage with no more digits
// than it needs: 0.05 as "5%".
func plainPercent(v float64) string {
	return strconv.FormatFloat(100*v, 'g', -1, 64) + "%"
}

// signedPercent formats a fraction as "+12.50%" or "-3.10%".
func signedPercent(v float64) string {
	s := percent(v)
	if v >= 0 && s != "0.00%" {
		s = "+" + s
	}
	return s
}

// paramList returns params as "name=value, ..." for people.
func paramList(ps []Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = printable(p.Name) + "=" + printable(p.Value)
	}
	return strings.Join(parts, ", ")
}

// writeText writes the human view: per group a heading, its parameters and
// a table of metrics; then the notes and the gate's verdict.
func (c *Comparison) writeText(b *bytes.Buffer) error {
	fmt.Fprintf(b, "old, new: the median ± the half-width of its %s confidence interval\n", plainPercent(c.Confidence))
	fmt.Fprintf(b, "delta: the change of the median, in the interval both medians' intervals allow\n")
	fmt.Fprintf(b, "p: Mann-Whitney U test, significant below alpha %s; a regression fails beyond %s\n",
		strconv.FormatFloat(c.Alpha, 'g', -1, 64), plainPercent(c.Threshold))
	for _, g := range c.Groups {
		fmt.Fprintf(b, "\n%s: %d old, %d new archive(s)\n", printable(g.Benchmark), len(g.Old), len(g.New))
		if len(g.Old) == 0 {
			fmt.Fprintf(b, "only in new: %s\n", printable(strings.Join(g.New, " ")))
		}
		if len(g.New) == 0 {
			fmt.Fprintf(b, "only in old: %s\n", printable(strings.Join(g.Old, " ")))
		}
		if len(g.Params) > 0 {
			fmt.Fprintf(b, "params: %s\n", paramList(g.Params))
		}
		t := Table{Name: g.Benchmark}
		for _, name := range []string{"table", "row", "metric", "old", "±", "new", "±", "delta", "interval", "p", "n", "verdict"} {
			t.Columns = append(t.Columns, Column{Name: name, Kind: KindLabel})
		}
		for _, m := range g.Metrics {
			t.Rows = append(t.Rows, Row{Labels: m.textCells()})
		}
		if err := writeTextTable(b, &t); err != nil {
			return err
		}
	}
	for _, n := range c.Notes() {
		fmt.Fprintf(b, "\n%s\n", n)
	}
	fails := c.Failures()
	fmt.Fprintln(b)
	if len(fails) == 0 {
		fmt.Fprintf(b, "no significant regression beyond %s\n", plainPercent(c.Threshold))
	} else {
		lacks := ""
		for _, m := range fails {
			if m.Verdict == VerdictOldOnly {
				lacks = ", or metrics NEW lacks"
			}
		}
		fmt.Fprintf(b, "%d significant regression(s) beyond %s%s:\n", len(fails), plainPercent(c.Threshold), lacks)
		for _, m := range fails {
			change := signedPercent(m.Delta)
			if m.Verdict == VerdictOldOnly {
				change = "missing from NEW"
			}
			fmt.Fprintf(b, "  %s %s %s: %s\n", printable(m.Table), printable(m.Row), printable(m.Metric), change)
		}
	}
	out := trimTrailingSpace(b.Bytes())
	b.Reset()
	b.Write(out)
	return nil
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

// textCells returns m's cells in the human table.
func (m MetricDelta) textCells() []string {
	unit := m.Unit
	if m.Display != "" {
		unit = m.Display
	}
	scale, ok := displayScale(m.Unit, m.Display)
	if !ok {
		scale, unit = 1, m.Unit
	}
	var vals []float64
	for _, s := range []*SideStats{m.Old, m.New} {
		if s != nil {
			vals = append(vals, s.Center*scale)
		}
	}
	prec := precision(unit, vals)
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
	case m.Better == "" && m.Old != nil && m.New != nil:
		verdict += " (direction unknown, not gated)"
	}
	return []string{m.Table, m.Row, heading(m.Metric, unit), oc, os, nc, ns, delta, interval, p, n, verdict}
}

// compareCSVHeader is the header record of the CSV view.
var compareCSVHeader = []string{"benchmark", "params", "table", "row", "metric", "unit", "better",
	"old_n", "old", "old_lo", "old_hi", "new_n", "new", "new_lo", "new_hi",
	"delta", "delta_lo", "delta_hi", "p", "verdict", "fails"}

// writeCSV writes one record per metric, values in the metric's Unit,
// fractions for the deltas; an unknown or infinite figure is empty.
func (c *Comparison) writeCSV(b *bytes.Buffer) error {
	cw := csv.NewWriter(b)
	if err := cw.Write(compareCSVHeader); err != nil {
		return err
	}
	num := func(v float64) string {
		if math.IsInf(v, 0) {
			return ""
		}
		return csvFloat(v)
	}
	side := func(s *SideStats) []string {
		if s == nil {
			return []string{"0", "", "", ""}
		}
		return []string{strconv.Itoa(s.N), num(s.Center), num(s.Lo), num(s.Hi)}
	}
	for _, g := range c.Groups {
		params := paramList(g.Params)
		for _, m := range g.Metrics {
			rec := []string{g.Benchmark, params, m.Table, m.Row, m.Metric, m.Unit, string(m.Better)}
			rec = append(rec, side(m.Old)...)
			rec = append(rec, side(m.New)...)
			rec = append(rec, num(m.Delta), num(m.DeltaLo), num(m.DeltaHi), num(m.P), string(m.Verdict), strconv.FormatBool(m.Fails))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes c indented, with null for unknown or infinite figures.
func (c *Comparison) writeJSON(b *bytes.Buffer) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	b.Write(data)
	b.WriteByte('\n')
	return nil
}

// finiteOrNull is v for JSON: null when NaN or infinite.
func finiteOrNull(v float64) nullFloat {
	if math.IsInf(v, 0) {
		return nullFloat(math.NaN())
	}
	return nullFloat(v)
}

// MarshalJSON writes s with null for an infinite interval bound.
func (s SideStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N      int       `json:"n"`
		Center nullFloat `json:"center"`
		Lo     nullFloat `json:"lo"`
		Hi     nullFloat `json:"hi"`
	}{s.N, finiteOrNull(s.Center), finiteOrNull(s.Lo), finiteOrNull(s.Hi)})
}

// MarshalJSON writes m with snake_case keys and null for unknown figures.
func (m MetricDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Table   string     `json:"table"`
		Row     string     `json:"row"`
		Metric  string     `json:"metric"`
		Unit    string     `json:"unit,omitempty"`
		Display string     `json:"display,omitempty"`
		Better  Better     `json:"better,omitempty"`
		Old     *SideStats `json:"old"`
		New     *SideStats `json:"new"`
		Delta   nullFloat  `json:"delta"`
		DeltaLo nullFloat  `json:"delta_lo"`
		DeltaHi nullFloat  `json:"delta_hi"`
		P       nullFloat  `json:"p"`
		Verdict Verdict    `json:"verdict"`
		Fails   bool       `json:"fails"`
	}{m.Table, m.Row, m.Metric, m.Unit, m.Display, m.Better, m.Old, m.New,
		finiteOrNull(m.Delta), finiteOrNull(m.DeltaLo), finiteOrNull(m.DeltaHi), finiteOrNull(m.P), m.Verdict, m.Fails})
}
