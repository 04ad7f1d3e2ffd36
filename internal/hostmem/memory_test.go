package hostmem

import (
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/units"
)

func TestParseMeminfo(t *testing.T) {
	for _, c := range []struct {
		text, wantSource string
		want             int64
		wantErr          bool
	}{
		{"MemTotal:       24684084 kB\nMemFree:        24237120 kB\nMemAvailable:   24340328 kB\n", "MemAvailable", 24340328 * 1024, false},
		{"MemTotal:       1000 kB\nMemFree:        10 kB\n", "MemTotal", 1000 * 1024, false}, // before Linux 3.14
		{"MemFree: 10 kB\n", "", 0, true},
		{"MemAvailable: lots kB\n", "", 0, true},
	} {
		m, err := ParseMeminfo(strings.NewReader(c.text))
		if (err != nil) != c.wantErr || m.Bytes != c.want || m.Source != c.wantSource {
			t.Errorf("ParseMeminfo(%q) = %+v, %v; want %d from %s (error %v)", c.text, m, err, c.want, c.wantSource, c.wantErr)
		}
	}
}

func TestReadHostMemory(t *testing.T) {
	m, err := ReadHostMemory()
	if err != nil || m.Bytes <= 0 || m.Source == "" {
		t.Fatalf("ReadHostMemory() = %+v, %v", m, err)
	}
}

func TestBufferError(t *testing.T) {
	host := HostMemory{Bytes: 23*units.GiB + 200*units.MiB, Source: "MemAvailable"}
	for _, c := range []struct {
		perRank int64
		ranks   int
		want    string // "" for fits, "*" for any refusal
	}{
		{64 * units.GiB, 1, "needs 64 GiB of buffer per rank, this host has 23.2 GiB available (MemAvailable)"},
		{8 * units.GiB, 4, "needs 8 GiB of buffer per rank, 32 GiB for the 4 ranks on this host, which has 23.2 GiB available (MemAvailable)"},
		{8 * units.GiB, 2, ""},
		{1 << 62, 1 << 20, "*"}, // saturates, no overflow
	} {
		err := BufferError(c.perRank, c.ranks, host)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%d × %d: %v, want it to fit", c.perRank, c.ranks, err)
		case c.want == "*" && err == nil:
			t.Errorf("%d × %d: fits, want a refusal", c.perRank, c.ranks)
		case c.want != "" && c.want != "*" && (err == nil || err.Error() != c.want):
			t.Errorf("%d × %d: %v, want %q", c.perRank, c.ranks, err, c.want)
		}
	}
}

func TestSizeArg(t *testing.T) {
	for n, want := range map[int64]string{64 * units.GiB: "64g", 4096: "4k", 1000: "1000", 3 * units.MiB: "3m", 2 * units.TiB: "2t"} {
		if got := SizeArg(n); got != want {
			t.Errorf("SizeArg(%d) = %s, want %s", n, got, want)
		}
	}
}
