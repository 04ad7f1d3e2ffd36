package testenv

import (
	"strings"
	"testing"
)

func TestScreen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"abc\rx", "xbc"},
		{"abc\r\x1b[2K", ""},
		{"abcdef\r\x1b[3C\x1b[0K", ""}, // other CSI dropped: the cursor stays at 0
		{"abcdef\rab\x1b[K", "ab"},
		{"one\r\ntwo", "one\ntwo"},
		{"bar\r\x1b[2Kres\r\nbar", "res\nbar"},
	} {
		if got := strings.Join(Screen(tc.in), "\n"); got != tc.want {
			t.Errorf("Screen(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
