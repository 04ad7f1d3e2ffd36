package report

import (
	"slices"
	"strings"
	"testing"
)

func TestFitColumns(t *testing.T) {
	t.Parallel()
	// Five columns: two names that may shorten, a figure, two extras.
	widths := []int{20, 30, 8, 7, 5}
	steps := []fitStep{{drop: []int{3}}, {shrinkTo: 15}, {drop: []int{4}}, {shrinkTo: minCell}}
	shrink := []int{0, 1}
	tests := []struct {
		name  string
		width int
		keep  string // per column, 1 kept
		limit []int
	}{
		{"no limit", 0, "11111", []int{0, 0, 0, 0, 0}},
		{"fits", 78, "11111", []int{0, 0, 0, 0, 0}},
		{"one column out", 77, "11101", []int{0, 0, 0, 0, 0}},
		{"the widest name shortened", 60, "11101", []int{0, 21, 0, 0, 0}},
		{"both names shortened", 50, "11101", []int{16, 15, 0, 0, 0}},
		{"the last extra out, room given back", 44, "11100", []int{17, 15, 0, 0, 0}},
		{"a name under 15", 40, "11100", []int{13, 15, 0, 0, 0}},
		{"both names at the floor", 32, "11100", []int{10, 10, 0, 0, 0}},
		{"too narrow for anything", 10, "11100", []int{10, 10, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fitColumns(widths, tc.width, steps, shrink)
			var keep strings.Builder
			for _, k := range f.keep {
				keep.WriteString(map[bool]string{true: "1", false: "0"}[k])
			}
			if keep.String() != tc.keep || !slices.Equal(f.limit, tc.limit) {
				t.Errorf("fitColumns(%d) = keep %s limit %v, want %s %v", tc.width, keep.String(), f.limit, tc.keep, tc.limit)
			}
		})
	}
}

func TestWrapItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, first, indent string
		items               []string
		sep                 string
		width               int
		want                string
	}{
		{"no limit", "params: ", "  ", []string{"a=1", "b=2 MiB", "c=3"}, ", ", 0, "params: a=1, b=2 MiB, c=3\n"},
		{"breaks between items", "params: ", "  ", []string{"a=1", "b=2 MiB", "c=3"}, ", ", 20, "params: a=1,\n  b=2 MiB, c=3\n"},
		{"a long item on its own line", "", "  ", []string{"short", "averyveryverylongword", "end"}, " ", 10,
			"short\n  averyveryverylongword\n  end\n"},
		{"exactly the width", "", "", []string{"abc", "def"}, " ", 7, "abc def\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := wrapItems(tc.first, tc.indent, tc.items, tc.sep, tc.width); got != tc.want {
				t.Errorf("wrapItems = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestShorten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{{"throughput(GiB/s)", 10, "throughpu…"}, {"bw", 10, "bw"}, {"±∞", 2, "±∞"}, {"abc", 0, "abc"}} {
		if got := shorten(tc.in, tc.n); got != tc.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
