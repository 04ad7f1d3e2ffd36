package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadJSON checks that ReadJSON never panics and that whatever it
// accepts every writer can render, that writing and re-reading is
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
	schema := archiveSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
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
