package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteCSV writes the tables of r as CSV for spreadsheets and scripts, one
// record per table row: first the table's name, then its label columns,
// then its metric columns, each group in Columns order. Every table starts
// with a header record, "table" followed by the column headings with the
// stored unit in parentheses ("mean(s)", as IOR's CSV writes "open(s)");
// tables after the first are preceded by an empty line, so a file holding
// several tables splits on blank lines. Metric values are in their
// column's Unit (not the Display unit) at full precision, and NaN is an
// empty cell. Run metadata, parameters and raw samples are not written:
// JSON carries those.
func WriteCSV(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	for i := range r.Tables {
		t := &r.Tables[i]
		if i > 0 {
			cw.Flush()
			b.WriteByte('\n')
		}
		labels, metrics := t.split()
		header := make([]string, 0, 1+len(t.Columns))
		header = append(header, "table")
		for _, c := range labels {
			header = append(header, c.Name)
		}
		for _, c := range metrics {
			header = append(header, heading(c.Name, c.Unit))
		}
		if err := cw.Write(header); err != nil {
			return fmt.Errorf("report: writing CSV: %w", err)
		}
		for _, row := range t.Rows {
			rec := make([]string, 0, len(header))
			rec = append(rec, t.Name)
			rec = append(rec, row.Labels...)
			for _, v := range row.Metrics {
				rec = append(rec, csvFloat(v))
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("report: writing CSV: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: writing CSV: %w", err)
	}
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing CSV: %w", err)
	}
	return nil
}

// csvFloat formats v at full precision without an exponent (byte counts
// stay integers), or empty for NaN.
func csvFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
