package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadJSON checks that ReadJSON never panics, that its refusals are
// one line without Go's words (type names, "unmarshal"), and that
// whatever it accepts every writer can render, that writing and re-reading is
// stable: WriteJSON(ReadJSON(x)) reads back to the same bytes, and that
// what WriteJSON writes matches docs/results.schema.json.
func FuzzReadJSON(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "TestWriteJSON.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema": "hpcbench/1", "run": {"benchmark": "x"}}`))
	f.Add([]byte(`{"schema": "hpcbench/1", "run": {"benchmark": "x", "start": "2026-01-01T00:00:00.5+01:00"},
		"tables": [{"name": "t", "columns": [{"name": "l", "kind": "label"}, {"name": "m", "kind": "metric",
		"unit": "s", "display": "us", "source": "r"}], "rows": [{"labels": ["a"], "metrics": [null],
		"samples": {"r": [1, null, -0]}}]}]}`))
	f.Add([]byte(`{"schema": "hpcbench/2"}`))
	f.Add([]byte(`[{"schema": "hpcbench/1"}]`))
	f.Add([]byte(`{"schema": "hpcbench/1", "run": {"benchmark": "x", "ranks": 1.5, "start": 3}, "tables": null}`))
	f.Add([]byte(`{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": [{"name": "t", "columns": [{"name": "m",
		"kind": "metric"}], "rows": [{"metrics": ["1"], "samples": {"m": 1}}]}]}`))
	schema := archiveSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			// A refusal is one line in a user's words.
			if leak := goWords(err.Error()); leak != "" {
				t.Fatalf("ReadJSON error %q says %q, Go's words", err, leak)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("ReadJSON error %q is not one line", err)
			}
			return
		}
		for _, format := range []Format{FormatText, FormatCSV} {
			if err := Write(io.Discard, r, format); err != nil {
				t.Fatalf("Write(%v) of an accepted result: %v", format, err)
			}
		}
		var first bytes.Buffer
		if err := WriteJSON(&first, r); err != nil {
			t.Fatalf("WriteJSON of an accepted result: %v", err)
		}
		if err := validateArchive(schema, first.Bytes()); err != nil {
			t.Fatalf("WriteJSON's output does not match %s: %v\n%s", schemaFile, err, first.Bytes())
		}
		r2, err := ReadJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("ReadJSON of WriteJSON's output: %v\n%s", err, first.Bytes())
		}
		var second bytes.Buffer
		if err := WriteJSON(&second, r2); err != nil {
			t.Fatalf("second WriteJSON: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("write/read not stable:\nfirst\n%s\nsecond\n%s", first.Bytes(), second.Bytes())
		}
	})
}
