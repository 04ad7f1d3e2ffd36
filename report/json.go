package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// WriteJSON writes r to w as one indented JSON document, the archive format
// that ReadJSON and hpcbench compare read back. Keys come out in a fixed
// order: struct fields in declaration order, map keys sorted. Metric values
// are in their column's Unit (named by the column's "unit" key), at full
// precision; NaN is written as null. Arrays of plain values sit on one
// line, and <, > and & are not escaped. The "schema" key is always Schema.
func WriteJSON(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	out := *r
	out.Schema = Schema
	if out.Tables == nil {
		out.Tables = []Table{} // "tables": [], not null
	}
	b, err := marshal(&out, "  ")
	if err != nil {
		return fmt.Errorf("report: encoding JSON: %w", err)
	}
	b = append(inlineScalarArrays(b), '\n')
	if _, err := bytes.NewBuffer(b).WriteTo(w); err != nil {
		return fmt.Errorf("report: writing JSON: %w", err)
	}
	return nil
}

// inlineScalarArrays rewrites indented JSON so that arrays holding only
// numbers, strings, booleans or nulls sit on one line ("metrics": [1, 2]),
// which keeps per-rank samples readable. It relies on json.MarshalIndent's
// layout: an array opens at the end of a line and each element of a scalar
// array is one line; a newline inside a string is always escaped.
func inlineScalarArrays(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	out := make([]byte, 0, len(b))
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line...)
		if bytes.HasSuffix(line, []byte("[")) {
			end, ok := scalarArrayEnd(lines, i+1)
			if ok {
				for j := i + 1; j < end; j++ {
					if j > i+1 {
						out = append(out, ' ')
					}
					out = append(out, bytes.TrimSpace(lines[j])...)
				}
				out = append(out, bytes.TrimSpace(lines[end])...)
				i = end
			}
		}
		if i < len(lines)-1 {
			out = append(out, '\n')
		}
	}
	return out
}

// scalarArrayEnd returns the index of the line closing the array whose
// elements start at lines[from], if every element is a scalar.
func scalarArrayEnd(lines [][]byte, from int) (int, bool) {
	for j := from; j < len(lines); j++ {
		t := bytes.TrimSpace(lines[j])
		if len(t) == 0 {
			return 0, false
		}
		switch t[0] {
		case ']':
			return j, true
		case '[', '{', '}':
			return 0, false
		}
	}
	return 0, false
}

// rowJSON is the JSON form of a Row: the same fields with NaN as null.
type rowJSON struct {
	Labels  []string               `json:"labels"`
	Metrics []nullFloat            `json:"metrics"`
	Samples map[string][]nullFloat `json:"samples,omitempty"`
}

// MarshalJSON encodes a row as {"labels": [...], "metrics": [...],
// "samples": {...}} with NaN written as null.
func (r Row) MarshalJSON() ([]byte, error) {
	out := rowJSON{Labels: r.Labels, Metrics: toNull(r.Metrics)}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	if len(r.Samples) > 0 {
		out.Samples = make(map[string][]nullFloat, len(r.Samples))
		for k, v := range r.Samples {
			out.Samples[k] = toNull(v)
		}
	}
	return marshal(out, "")
}

// marshal encodes v like json.Marshal, or json.MarshalIndent when indent is
// set, but leaves <, > and & alone: the archive is read by people and jq,
// not embedded in HTML, and a command line with "2>&1" should read as typed.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// nullFloat is a float64 whose JSON form is null for NaN.
type nullFloat float64

// MarshalJSON writes f as encoding/json writes a float64, or null for NaN.
func (f nullFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) {
		return []byte("null"), nil
	}
	if math.IsInf(v, 0) {
		return nil, fmt.Errorf("infinite value %v", v)
	}
	return json.Marshal(v)
}

// toNull converts vals for encoding; nil stays empty, not null.
func toNull(vals []float64) []nullFloat {
	out := make([]nullFloat, len(vals))
	for i, v := range vals {
		out[i] = nullFloat(v)
	}
	return out
}
