package progress

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{formatBytes(0), "0 B"},
		{formatBytes(1023), "1023 B"},
		{formatBytes(1024), "1.0 KiB"},
		{formatBytes(1536), "1.5 KiB"},
		{formatBytes(64 << 20), "64.0 MiB"},
		{formatBytes(3 << 40), "3.0 TiB"},
		{formatBytes(5 << 60), "5.0 EiB"},
		{formatCount(0), "0"},
		{formatCount(999999), "999999"},
		{formatCount(1234567), "1.23M"},
		{formatCount(4.5e9), "4.50G"},
		{formatDuration(0), "0s"},
		{formatDuration(1499 * time.Millisecond), "1s"},
		{formatDuration(59 * time.Second), "59s"},
		{formatDuration(4*time.Minute + 5*time.Second), "4m05s"},
		{formatDuration(2*time.Hour + 3*time.Minute + 7*time.Second), "2h03m07s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	const MiB = 1 << 20
	bar := func(fill, width int) string {
		return "|" + strings.Repeat("█", fill) + strings.Repeat(" ", width-fill) + "|"
	}
	for _, tc := range []struct {
		name    string
		s       phase
		bytes   bool
		rate    float64
		elapsed time.Duration
		cols    int
		want    string
	}{
		{"bytes", phase{name: "write", iter: 1, done: 32 * MiB, total: 64 * MiB}, true, 16 * MiB, 2 * time.Second, 120,
			"write iter 1  50% " + bar(20, 40) + " 32.0 MiB/64.0 MiB  16.0 MiB/s  elapsed 2s  ETA 2s"},
		{"operations", phase{name: "file creation", iter: 0, done: 250, total: 1000}, false, 125, 2 * time.Second, 120,
			"file creation iter 0  25% " + bar(10, 40) + " 250/1000 ops  125 ops/s  elapsed 2s  ETA 6s"},
		{"total not known", phase{name: "PingPong 1024 B", iter: 0, done: 4096}, false, 2048, 2 * time.Second, 120,
			"PingPong 1024 B iter 0  4096 ops  2048 ops/s  elapsed 2s"},
		{"no rate yet", phase{name: "read", done: 0, total: MiB}, true, 0, 0, 100,
			"read iter 0   0% " + bar(0, 40) + " 0 B/1.0 MiB  0 B/s  elapsed 0s  ETA ?"},
		{"past the total", phase{name: "read", done: 2 * MiB, total: MiB}, true, MiB, time.Minute, 100,
			"read iter 0 100% " + bar(30, 30) + " 1.0 MiB/1.0 MiB  1.0 MiB/s  elapsed 1m00s  ETA 0s"},
		{"narrow: a shorter bar", phase{name: "write", done: 3 * MiB, total: 4 * MiB}, true, MiB, 3 * time.Second, 80,
			"write iter 0  75% " + bar(9, 12) + " 3.0 MiB/4.0 MiB  1.0 MiB/s  elapsed 3s  ETA 1s"},
		{"narrower: no bar", phase{name: "write", done: 3 * MiB, total: 4 * MiB}, true, MiB, 3 * time.Second, 70,
			"write iter 0  75% 3.0 MiB/4.0 MiB  1.0 MiB/s  elapsed 3s  ETA 1s"},
		{"narrowest: cut", phase{name: "write", done: 3 * MiB, total: 4 * MiB}, true, MiB, 3 * time.Second, 30,
			"write iter 0  75% 3.0 MiB/4.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := render(tc.s, tc.bytes, tc.rate, tc.elapsed, tc.cols)
			if got != tc.want {
				t.Errorf("render =\n%q\nwant\n%q", got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n >= tc.cols {
				t.Errorf("line of %d columns on a terminal of %d would wrap", n, tc.cols)
			}
		})
	}
}
