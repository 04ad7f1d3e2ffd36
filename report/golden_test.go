package report

import (
	"bytes"
	"testing"
)

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleResult()); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	golden(t, b.Bytes())
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleResult()); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	golden(t, b.Bytes())
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, sampleResult()); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	golden(t, b.Bytes())
}

// TestWriteTextMinimal covers a result with only the required fields: no
// optional header lines, no options block, an empty table.
func TestWriteTextMinimal(t *testing.T) {
	r := New("coll")
	r.Tables = []Table{{Name: "Barrier", Columns: []Column{
		{Name: "t_avg", Kind: KindMetric, Unit: "s", Display: "us"},
	}}}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	golden(t, b.Bytes())
}
