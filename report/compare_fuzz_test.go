package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCompare feeds whatever ReadJSON accepts to Compare: it never panics,
// every comparison renders in each format, and an archive compared with
// itself never fails the gate.
func FuzzCompare(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "TestWriteJSON.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "params": [{"name": "p", "value": "1"}],
		"tables": [{"name": "t", "columns": [{"name": "l", "kind": "label"}, {"name": "a", "kind": "metric",
		"unit": "s", "better": "lower", "source": "r"}, {"name": "b", "kind": "metric", "unit": "s", "source": "r"}],
		"rows": [{"labels": ["x"], "metrics": [1, null], "samples": {"r": [1, 2, 3, 4, 5, null, 1e308]}},
		{"labels": ["x"], "metrics": [0, 0]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		base, err := ReadJSON(bytes.NewReader(seed))
		if err != nil {
			t.Fatal(err)
		}
		opt := CompareOptions{Alpha: 0.05, Threshold: 0.05}
		self, err := Compare([]CompareInput{{"a.json", r}}, []CompareInput{{"b.json", r}}, opt)
		if err != nil {
			t.Fatalf("Compare of an archive with itself: %v", err)
		}
		if fails := self.Failures(); len(fails) > 0 {
			t.Errorf("an archive compared with itself fails the gate: %+v", fails)
		}
		comparisons := []*Comparison{self}
		// Pooled with the base archive, r may mismatch it: an error is a
		// fine answer then.
		if other, err := Compare([]CompareInput{{"base.json", base}, {"a.json", r}}, []CompareInput{{"a.json", r}}, opt); err == nil {
			comparisons = append(comparisons, other)
		}
		for _, c := range comparisons {
			for _, format := range []Format{FormatText, FormatCSV, FormatJSON} {
				if err := WriteCompare(io.Discard, c, format, 0); err != nil {
					t.Errorf("WriteCompare(%v): %v", format, err)
				}
			}
			if err := WriteCompare(io.Discard, c, FormatText, 40); err != nil {
				t.Errorf("WriteCompare in 40 columns: %v", err)
			}
		}
	})
}
