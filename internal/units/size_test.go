package units

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr error  // nil: must succeed
		errHas  string // substring the error must contain
	}{
		// HAPPY PATH
		{in: "0", want: 0},                    // zero is a size
		{in: "4096", want: 4096},              // plain bytes
		{in: "007", want: 7},                  // leading zeros are digits
		{in: "4k", want: 4 * KiB},             // IOR short suffix
		{in: "4K", want: 4 * KiB},             // case-insensitive
		{in: "2m", want: 2 * MiB},             // mebibytes
		{in: "1G", want: GiB},                 // gibibytes
		{in: "3t", want: 3 * TiB},             // tebibytes
		{in: "4KiB", want: 4 * KiB},           // explicit binary suffix
		{in: "4kib", want: 4 * KiB},           // any case
		{in: "1 MiB", want: MiB},              // FormatSize's form, one space
		{in: "1000 B", want: 1000},            // FormatSize's bytes form
		{in: "1000b", want: 1000},             // B without a space
		{in: "8388607t", want: 8388607 * TiB}, // largest whole TiB count that fits
		{in: "9223372036854775807", want: math.MaxInt64},

		// SAD PATH
		{in: "", wantErr: ErrSyntax, errHas: `""`},                   // empty
		{in: "-4k", wantErr: ErrSyntax, errHas: `"-4k"`},             // negative
		{in: "+4k", wantErr: ErrSyntax},                              // explicit sign
		{in: "k", wantErr: ErrSyntax},                                // no digits
		{in: " 4k", wantErr: ErrSyntax},                              // leading space
		{in: "4 ", wantErr: ErrSyntax, errHas: "trailing space"},     // space, no suffix
		{in: "4  k", wantErr: ErrSyntax},                             // two spaces
		{in: "1.5m", wantErr: ErrSyntax, errHas: "fractions"},        // fraction
		{in: "4x", wantErr: ErrSyntax, errHas: `unknown suffix "x"`}, // unknown letter
		{in: "4kb", wantErr: ErrSyntax, errHas: "ambiguous"},         // decimal or binary?
		{in: "4MB", wantErr: ErrSyntax, errHas: "MiB"},               // hint names the binary form
		{in: "4p", wantErr: ErrSyntax},                               // pebibytes not supported
		{in: "4kk", wantErr: ErrSyntax},                              // doubled suffix
		{in: "1e6", wantErr: ErrSyntax},                              // exponent
		{in: "0x10", wantErr: ErrSyntax},                             // hex
		{in: "1_000", wantErr: ErrSyntax},                            // digit separators
		{in: "9223372036854775808", wantErr: ErrRange},               // MaxInt64+1 bytes
		{in: "99999999999999999999999", wantErr: ErrRange},           // far beyond int64
		{in: "8388608t", wantErr: ErrRange, errHas: `"8388608t"`},    // 2^63 bytes
		{in: "9007199254740992k", wantErr: ErrRange},                 // 2^63 bytes via k
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.wantErr == nil {
			if err != nil || got != tt.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseSize(%q) = %d, %v; want error wrapping %v", tt.in, got, err, tt.wantErr)
			continue
		}
		if !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("ParseSize(%q) error %q does not contain %q", tt.in, err, tt.errHas)
		}
		if want := ""; !strings.HasPrefix(err.Error(), want) {
			t.Errorf(" is ParseSize(%q) error %q does not start with %q", tt.in, err, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{1000, "1000 B"},
		{1023, "1023 B"},
		{KiB, "1 KiB"},
		{4 * KiB, "4 KiB"},
		{1536 * KiB, "1536 KiB"}, // 1.5 MiB is not a whole MiB
		{MiB, "1 MiB"},
		{256 * MiB, "256 MiB"},
		{GiB, "1 GiB"},
		{TiB, "1 TiB"},
		{1024 * TiB, "1024 TiB"}, // no unit above TiB
		{-4 * KiB, "-4 KiB"},
		{math.MaxInt64, "9223372036854775807 B"},
		{math.MinInt64, "-8388608 TiB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFormatFlag: a size as typed on a command line, read back the same.
func TestFormatFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   int64
		want string
	}{
		{0, "0"}, {1, "1"}, {1000, "1000"}, {KiB, "1k"}, {1536 * KiB, "1536k"}, {MiB, "1m"},
		{47008, "47008"}, {GiB, "1g"}, {3 * TiB, "3t"}, {1024 * TiB, "1024t"}, {math.MaxInt64, "9223372036854775807"},
	} {
		got := FormatFlag(tt.in)
		if got != tt.want {
			t.Errorf("FormatFlag(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if back, err := ParseSize(got); err != nil || back != tt.in {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", got, back, err, tt.in)
		}
	}
}

func TestMiBPerSec(t *testing.T) {
	t.Parallel()
	if got, want := MiBPerSec(512*MiB, 2), 256.0; got != want {
		t.Errorf("MiBPerSec(512 MiB, 2s) = %v, want %v", got, want)
	}
	for _, s := range []float64{0, -1, math.NaN()} {
		if got := MiBPerSec(MiB, s); !math.IsNaN(got) {
			t.Errorf("MiBPerSec(1 MiB, %v) = %v, want NaN", s, got)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "4096", "4k", "1 MiB", "1000 B", "1.5m", "4x", "-1",
		"8388607t", "8388608t", "9223372036854775807", "", " ", "4 KiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrRange) {
				t.Fatalf("ParseSize(%q) error %v wraps neither ErrSyntax nor ErrRange", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, want >= 0", s, n)
		}
		f := FormatSize(n)
		back, err := ParseSize(f)
		if err != nil || back != n {
			t.Fatalf("ParseSize(FormatSize(%d) = %q) = %d, %v; want %d", n, f, back, err, n)
		}
	})
}
