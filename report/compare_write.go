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
// layout) within width columns, FormatCSV one record per metric,
// FormatJSON the whole model. A width of 0 is no limit; the text view
// fits one by leaving out columns (the intervals, p, n) and shortening
// row and metric names, never by wrapping a row. CSV and JSON ignore it.
func WriteCompare(w io.Writer, c *Comparison, f Format, width int) error {
	var b bytes.Buffer
	var err error
	switch f {
	case FormatText:
		err = c.writeText(&b, width)
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
	return strings.Join(paramItems(ps), ", ")
}

// paramItems returns each of params as "name=value".
func paramItems(ps []Param) []string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = printable(p.Name) + "=" + printable(p.Value)
	}
	return parts
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
