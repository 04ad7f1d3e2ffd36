package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestTextHostsAndQuoting(t *testing.T) {
	t.Parallel()
	r := New("mdtest")
	for i := range 10 {
		r.Run.Hostnames = append(r.Run.Hostnames, fmt.Sprintf("n%02d", i))
	}
	r.Run.Command = []string{"hpcbench", "mdtest", "-d", "/tmp/it's here", ""}
	r.Params = []Param{{Name: "path\nwith newline", Value: "a\tb"}}
	r.Tables = []Table{{Name: "rate", Columns: []Column{{Name: "op", Kind: KindLabel}}, Rows: []Row{
		{Labels: []string{"line\nbreak"}},
	}}}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	out := b.String()
	for _, want := range []string{
		"Hosts               : 10 (n00, n01, n02, n03, n04, n05, n06, n07, and 2 more)\n",
		`Command line        : hpcbench mdtest -d '/tmp/it'\''s here' ''` + "\n",
		`"path\nwith newline": "a\tb"` + "\n",
		`"line\nbreak"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " \n") {
		t.Errorf("output has trailing spaces:\n%q", out)
	}
}

func TestDisplayScale(t *testing.T) {
	t.Parallel()
	tests := []struct {
		unit, display string
		want          float64
		ok            bool
	}{
		{"s", "", 1, true},
		{"s", "ms", 1e3, true},
		{"s", "us", 1e6, true},
		{"us", "s", 1e-6, true},
		{"B", "KiB", 1.0 / 1024, true},
		{"MiB", "B", 1 << 20, true},
		{"MiB/s", "GiB/s", 1.0 / 1024, true},
		{"B/s", "MB/s", 1e-6, true},
		{"ops/s", "ops/s", 1, true},
		{"", "", 1, true},
		{"s", "B", 0, false},
		{"MiB/s", "MiB", 0, false},
		{"ops/s", "kops/s", 0, false},
		{"s/s", "ms/s", 0, false}, // only sizes per second convert
		{"", "s", 0, false},
	}
	for _, tt := range tests {
		got, ok := displayScale(tt.unit, tt.display)
		if ok != tt.ok || (ok && math.Abs(got-tt.want) > 1e-12*tt.want) {
			t.Errorf("displayScale(%q, %q) = %v, %v; want %v, %v", tt.unit, tt.display, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPrecision(t *testing.T) {
	t.Parallel()
	whole, frac := []float64{1, 2, math.NaN()}, []float64{1, 2.5}
	tests := []struct {
		unit string
		vals []float64
		want int
	}{
		{"s", frac, 6}, {"ms", frac, 3}, {"us", frac, 2}, {"ns", frac, 0},
		{"MiB", frac, 2}, {"KiB", whole, 2}, {"MiB/s", frac, 2}, {"B/s", frac, 2}, {"MB/s", frac, 2},
		{"ops/s", whole, 3}, {"%", frac, 2},
		{"", whole, 0}, {"", frac, 3}, {"B", whole, 0}, {"B", frac, 3}, {"files", whole, 0},
	}
	for _, tt := range tests {
		if got := precision(tt.unit, tt.vals); got != tt.want {
			t.Errorf("precision(%q, %v) = %d, want %d", tt.unit, tt.vals, got, tt.want)
		}
	}
}

func TestFormatDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    float64
		prec int
		want string
	}{
		{1.23456, 2, "1.23"},
		{math.NaN(), 2, "-"},
		{-0.0001, 2, "0.00"}, // rounds to zero: no sign
		{math.Copysign(0, -1), 0, "0"},
		{-1.5, 1, "-1.5"},
		{1e6, 0, "1000000"},
	}
	for _, tt := range tests {
		if got := formatDisplay(tt.v, tt.prec); got != tt.want {
			t.Errorf("formatDisplay(%v, %d) = %q, want %q", tt.v, tt.prec, got, tt.want)
		}
	}
}

func TestInlineScalarArrays(t *testing.T) {
	t.Parallel()
	in := "{\n  \"a\": [\n    1,\n    \"x]\"\n  ],\n  \"b\": [\n    {\n      \"c\": [\n        null\n      ]\n    }\n  ],\n  \"d\": []\n}"
	want := "{\n  \"a\": [1, \"x]\"],\n  \"b\": [\n    {\n      \"c\": [null]\n    }\n  ],\n  \"d\": []\n}"
	if got := string(inlineScalarArrays([]byte(in))); got != want {
		t.Errorf("inlineScalarArrays:\ngot\n%s\nwant\n%s", got, want)
	}
}
