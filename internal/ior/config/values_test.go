package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/units"
)

func TestParseSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		err  error
	}{
		// HAPPY PATH
		{"0", 0, nil},
		{"5", 5 * time.Second, nil},
		{"+5", 5 * time.Second, nil},
		{"1k", 1024 * time.Second, nil}, // IOR's integer suffix
		{"0.1", 100 * time.Millisecond, nil},
		{".5", 500 * time.Millisecond, nil},
		{"2.", 2 * time.Second, nil},
		{"1.000000001", time.Second + 1, nil},
		{"0.0000000019", 1, nil}, // below a nanosecond: cut
		{"-1", -time.Second, nil},
		{"-0.25", -250 * time.Millisecond, nil},
		{"9223372036", 9223372036 * time.Second, nil},
		{"9223372036.854775807", time.Duration(1<<63 - 1), nil},
		// SAD PATH
		{"", 0, units.ErrSyntax},
		{".", 0, units.ErrSyntax},
		{"1e3", 0, units.ErrSyntax},
		{"inf", 0, units.ErrSyntax},
		{"NaN", 0, units.ErrSyntax},
		{"0x10", 0, units.ErrSyntax},
		{"1.2.3", 0, units.ErrSyntax},
		{"1,5", 0, units.ErrSyntax},
		{"--1", 0, units.ErrSyntax},
		{"9223372037", 0, units.ErrRange},
		{"9223372036.854775808", 0, units.ErrRange},
		{"99999999999999999999.5", 0, units.ErrRange},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, d := range []time.Duration{0, time.Second, 100 * time.Millisecond, 1250 * time.Millisecond} {
		if back, err := ParseSeconds(FormatSeconds(d)); err != nil || back != d {
			t.Errorf("FormatSeconds(%v) = %q parses back as %v, %v", d, FormatSeconds(d), back, err)
		}
	}
}

// FuzzParseSeconds checks that ParseSeconds never panics, that its
// errors wrap ErrSyntax or ErrRange and are one line, and that a
// decimal's sign gives the opposite value.
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"0", "0.1", "-0.1", ".5", "2.", "1k", "1e3", "9223372036.854775808", "", ".", "+-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSeconds(s)
		if err != nil {
			if !errors.Is(err, units.ErrSyntax) && !errors.Is(err, units.ErrRange) {
				t.Fatalf("ParseSeconds(%q): %v wraps neither ErrSyntax nor ErrRange", s, err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			return
		}
		if neg, err := ParseSeconds("-" + s); err != nil || neg != -d {
			t.Fatalf("ParseSeconds(-%s) = %v, %v; want %v", s, neg, err, -d)
		}
	})
}
