package report

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

var _ pflag.Value = (*Format)(nil)

func TestParseFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"human", FormatText, true},
		{"text", FormatText, true},
		{"JSON", FormatJSON, true},
		{"csv", FormatCSV, true},
		{"", 0, false},
		{"yaml", 0, false},
		{"jsonl", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if tt.ok {
			if err != nil || got != tt.want {
				t.Errorf("ParseFormat(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("ParseFormat(%q) = %v, want error", tt.in, got)
			continue
		}
		for _, name := range []string{`"` + tt.in + `"`, "human", "text", "json", "csv"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("ParseFormat(%q) error %q does not mention %s", tt.in, err, name)
			}
		}
	}
	for _, f := range []Format{FormatText, FormatJSON, FormatCSV} {
		if back, err := ParseFormat(f.String()); err != nil || back != f {
			t.Errorf("ParseFormat(%v.String()) = %v, %v", f, back, err)
		}
	}
}

func TestFormatFlag(t *testing.T) {
	t.Parallel()
	f := FormatText
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&f, "format", "output `format`: human, json or csv")
	if err := fs.Parse([]string{"--format", "csv"}); err != nil || f != FormatCSV {
		t.Fatalf("--format csv: f = %v, err = %v", f, err)
	}
	err := fs.Parse([]string{"--format=xml"})
	if err == nil || !strings.Contains(err.Error(), "--format") || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("--format=xml error = %v, want it to name the flag and the value", err)
	}
}

// TestWriteSelectsWriter checks Write against the direct calls.
func TestWriteSelectsWriter(t *testing.T) {
	t.Parallel()
	r := sampleResult()
	writers := map[Format]func(io.Writer, *Result) error{
		FormatText: WriteText, FormatJSON: WriteJSON, FormatCSV: WriteCSV,
	}
	for f, direct := range writers {
		var got, want bytes.Buffer
		if err := Write(&got, r, f); err != nil {
			t.Fatalf("Write(%v): %v", f, err)
		}
		if err := direct(&want, r); err != nil {
			t.Fatalf("direct %v: %v", f, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("Write(%v) differs from its writer", f)
		}
	}
	if err := Write(io.Discard, r, Format(42)); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("Write(Format(42)) = %v, want unknown format error", err)
	}
}

// TestWritersReturnWriteErrors feeds every writer a writer that fails after
// n bytes, for every n short of the full output: each must report the
// failure, wrapped (vegeta's histogram reporter dropped it). Every small n
// is tried, then a stride through the rest, then the last byte.
func TestWritersReturnWriteErrors(t *testing.T) {
	t.Parallel()
	r := sampleResult()
	for _, f := range []Format{FormatText, FormatJSON, FormatCSV} {
		var full bytes.Buffer
		if err := Write(&full, r, f); err != nil {
			t.Fatalf("Write(%v): %v", f, err)
		}
		for n := 0; n < full.Len(); n = nextCut(n, full.Len()) {
			err := Write(&failWriter{n: n}, r, f)
			if !errors.Is(err, errFailWriter) {
				t.Fatalf("Write(%v) to a writer failing after %d of %d bytes = %v, want %v",
					f, n, full.Len(), err, errFailWriter)
			}
		}
		if err := Write(&failWriter{n: full.Len()}, r, f); err != nil {
			t.Errorf("Write(%v) to a writer with room for all %d bytes = %v", f, full.Len(), err)
		}
	}
}

// shortWriter drops the last byte of every write without saying so.
type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return max(0, len(p)-1), nil }

func TestWritersReportShortWrites(t *testing.T) {
	t.Parallel()
	for _, f := range []Format{FormatText, FormatJSON, FormatCSV} {
		if err := Write(shortWriter{}, sampleResult(), f); !errors.Is(err, io.ErrShortWrite) {
			t.Errorf("Write(%v) to a short writer = %v, want %v", f, err, io.ErrShortWrite)
		}
	}
}

// nextCut returns the failure point after n: every byte up to 64, then
// strides of 61, always including size-1.
func nextCut(n, size int) int {
	switch {
	case n < 64:
		return n + 1
	case n+61 < size-1:
		return n + 61
	case n < size-1:
		return size - 1
	}
	return size
}
