package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// fabricResult is a fabric ping-pong run as internal/fabtest builds it:
// two sizes, the second in duration mode with a lost message.
func fabricResult() *Result {
	us := func(n string) Column {
		return Column{Name: n, Kind: KindMetric, Unit: "s", Display: "us", Better: BetterLower}
	}
	r := New(BenchmarkFabric + "pingpong")
	r.Run.Ranks, r.Run.Hosts = 2, 1
	r.Params = []Param{{Name: "test", Value: "pingpong"}}
	r.Tables = []Table{{Name: "pingpong", Columns: []Column{
		{Name: FabBytes, Kind: KindLabel},
		{Name: FabSent, Kind: KindMetric}, {Name: FabAcked, Kind: KindMetric}, {Name: FabXfers, Kind: KindMetric},
		{Name: FabTotal, Kind: KindMetric, Unit: "B"}, {Name: FabTime, Kind: KindMetric, Unit: "s"},
		{Name: FabMBps, Kind: KindMetric, Unit: "MB/s", Better: BetterHigher}, us(FabUsec),
		{Name: FabMxfers, Kind: KindMetric, Better: BetterHigher}, us(FabP50), us(FabP99), us(FabMax),
		{Name: FabMinMBps, Kind: KindMetric, Unit: "MB/s", Better: BetterHigher}, {Name: FabDefects, Kind: KindMetric},
	}, Rows: []Row{
		{Labels: []string{"64"}, Metrics: []float64{1000, 1000, 2000, 128000, 0.0128, 10.0, 6.4e-6, 0.15625, 6.3e-6, 9.1e-6, 41e-6, math.NaN(), 0}},
		{Labels: []string{"1048576"}, Metrics: []float64{1000, 999, 2000, 2097152000, 0.71, 2953.7, 355e-6, 0.0028, 350e-6, 420e-6, 1.2e-3, 2801.5, 0},
			Samples: map[string][]float64{FabMinMBps: {2990, 2801.5}}},
	}}}
	return r
}

func TestWriteFabtests(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFabtests(&b, fabricResult()); err != nil {
		t.Fatal(err)
	}
	golden(t, b.Bytes())
	// The columns fi_pingpong prints sit where it prints them.
	lines := strings.Split(b.String(), "\n")
	for _, w := range []struct {
		line int
		at   int
		text string
	}{{0, 0, "bytes"}, {0, 8, "#sent"}, {0, 16, "#ack"}, {0, 25, "total"}, {0, 37, "time"}, {0, 46, "MB/sec"}, {0, 56, "usec/xfer"}, {0, 68, "Mxfers/sec"},
		{1, 8, "1k"}, {1, 16, "=1k"}, {1, 25, "125k"}, {1, 37, "0.01s"}, {1, 47, "10.00"}, {1, 59, "6.40"}, {1, 70, "0.16"}, {2, 16, "-1"}, {2, 25, "1.9g"}} {
		if l := lines[w.line]; len(l) < w.at+len(w.text) || l[w.at:w.at+len(w.text)] != w.text {
			t.Errorf("line %d: want %q at column %d: %q", w.line, w.text, w.at, l)
		}
	}
}

func TestWriteFabtestsRefusesOtherTables(t *testing.T) {
	if err := WriteFabtests(&bytes.Buffer{}, sampleResult()); err == nil {
		t.Error("a table without the fabric columns was rendered")
	}
}

func TestFabSizeCount(t *testing.T) {
	for _, tc := range []struct {
		n         int64
		size, cnt string
	}{
		{0, "0", "0"}, {64, "64", "64"}, {999, "999", "999"}, {1000, "1000", "1k"}, {1024, "1k", "1k"}, {1536, "1.5k", "1k"},
		{128000, "125k", "128k"}, {2000000, "1.9m", "2m"}, {1 << 20, "1m", "1m"}, {2097152000, "1.9g", "2b"},
	} {
		if s, c := fabSize(tc.n), fabCount(tc.n); s != tc.size || c != tc.cnt {
			t.Errorf("%d: size %q count %q, want %q %q", tc.n, s, c, tc.size, tc.cnt)
		}
	}
}
