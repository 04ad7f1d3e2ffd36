package plot

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

var update = flag.Bool("update", false, "rewrite the golden files and the synthetic archives in testdata")

// The archives in testdata: coll-a.json and coll-b.json are real runs of
//
//	hpcbench launch -n 2 -- hpcbench coll -iter 10 -time 1 -msglog 0:16 PingPong Allreduce --output coll-X.json
//
// on a shared 2-core VM (hence the noise). fabric-pingpong.json,
// fabric-rma_pingpong.json and fabric-bw.json are real runs of
//
//	hpcbench launch -n 2 -- hpcbench fabric TEST -p shm -S all --max-size 64k -I 100 --archive fabric-TEST.json
//
// fabric-allpairs.json of hpcbench launch -n 3 -- hpcbench fabric allpairs
// --ranks -p shm, and wireup-a.json and wireup-b.json of
// hpcbench launch -n 4 -- hpcbench wireup (wireup-b.json with
// --pipeline=false). The others are built below the
// way the engines build their Results (report.IORPhase, MdtestSummary),
// with figures shaped like the reference runs in report/testdata, and
// written by TestSyntheticArchives -update.

// iorArchive returns an IOR run of one test per transfer size in xfers
// (bytes), -i 3 -w -r, with bandwidths that grow with the transfer size
// and scale by speed.
func iorArchive(xfers []int64, speed float64) *report.Result {
	r := report.New("ior")
	r.Run = report.Run{Benchmark: "ior", Command: []string{"hpcbench", "ior", "-w", "-r", "-i", "3"},
		Version: "hpcbench 0.1.0", Hostnames: []string{"vm"}, Ranks: 2, Hosts: 1,
		Start: time.Date(2026, 11, 29, 18, 3, 15, 0, time.UTC), End: time.Date(2026, 11, 29, 18, 4, 2, 0, time.UTC)}
	for test, xfer := range xfers {
		t := report.Table{Name: report.IORTableName(test, report.IORResults), Columns: report.IORResultsColumns()}
		base := speed * 800 * (1 - math.Exp(-float64(xfer)/float64(256<<10)))
		for iter := range 3 {
			for op, access := range []string{report.IORWrite, report.IORRead} {
				bw := base * (1 + 0.6*float64(op)) * (1 + 0.02*float64(iter-1))
				secs := 512 / bw
				t.Rows = append(t.Rows, report.IORPhase{
					Access: access, Iter: iter, BW: bw, IOPS: bw * float64(1<<20) / float64(xfer),
					Latency: secs / (256 << 20 / float64(xfer)), Block: 256 << 20, Xfer: xfer,
					Open: 0.0002, WrRd: secs, Close: 0.0001, Total: secs + 0.0003, Tasks: 2, Errors: math.NaN(),
				}.Row())
			}
			t.Rows = append(t.Rows, report.IORRemoveRow(iter, 0.0015))
		}
		r.Tables = append(r.Tables, t)
	}
	return r
}

// mdtestArchive returns an mdtest run of files and directories, 2
// iterations, with rates scaled by speed; tree creation and removal did not
// run (NaN).
func mdtestArchive(speed float64) *report.Result {
	r := report.New("mdtest")
	r.Run.Command = []string{"hpcbench", "mdtest", "-n", "1000", "-i", "2"}
	r.Run.Ranks, r.Run.Hosts = 2, 1
	t := report.Table{Name: report.MdtestRateTable, Columns: report.MdtestRateColumns()}
	means := map[string]float64{
		"Directory creation": 7741.855, "Directory stat": 163822.416, "Directory rename": 48408.560,
		"Directory removal": 507.205, "File creation": 2758.520, "File stat": 272260.481,
		"File read": 132217.743, "File removal": 84152.018,
	}
	nan := math.NaN()
	for _, op := range report.MdtestOperations() {
		m, ok := means[op]
		if !ok {
			t.Rows = append(t.Rows, report.MdtestSummary{Operation: op, Max: nan, Min: nan, Mean: nan, StdDev: nan,
				RankMax: nan, RankMin: nan, RankMean: nan}.RateRow())
			continue
		}
		m *= speed
		t.Rows = append(t.Rows, report.MdtestSummary{Operation: op, Max: m * 1.1, Min: m * 0.9, Mean: m,
			StdDev: m * 0.14, RankMax: nan, RankMin: nan, RankMean: nan, Iterations: []float64{m * 1.1, m * 0.9}}.RateRow())
	}
	r.Tables = append(r.Tables, t)
	return r
}

// timeArchive returns an IOR run that also holds a time-series table (see
// the package doc): write then read, 1 s intervals, with a dip at dip
// seconds into the write; with tail, each phase ends with a row for a
// 2.5 ms tail at 8 times the phase's rate (transfers that took the whole
// interval before and ended in the tail), as archives had before
// report.SeriesTable merged such tails.
func timeArchive(dip int, tail bool) *report.Result {
	r := iorArchive([]int64{1 << 20}, 1)
	t := report.Table{Name: "throughput", Columns: []report.Column{
		{Name: "phase", Kind: report.KindLabel},
		{Name: "elapsed", Kind: report.KindMetric, Unit: "s", Better: report.BetterLower},
		{Name: "ops", Kind: report.KindMetric},
		{Name: "bw", Kind: report.KindMetric, Unit: "MiB/s", Better: report.BetterHigher},
	}}
	for _, phase := range []string{report.IORWrite, report.IORRead} {
		for s := 1; s <= 10; s++ {
			bw := 640.0
			if phase == report.IORRead {
				bw = 1000 + 5*float64(dip)
			}
			if phase == report.IORWrite && s == dip {
				bw /= 4
			}
			bw += 15 * math.Sin(float64(s))
			t.Rows = append(t.Rows, report.Row{Labels: []string{phase}, Metrics: []float64{float64(s), bw, bw}})
		}
		if level := t.Rows[len(t.Rows)-1].Metrics[2]; tail {
			t.Rows = append(t.Rows, report.Row{Labels: []string{phase}, Metrics: []float64{10.0025, 8 * level, 8 * level}})
		}
	}
	r.Tables = append(r.Tables, t)
	return r
}

// synthetic lists the testdata archives built here.
func synthetic() map[string]*report.Result {
	sizes := []int64{16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}
	return map[string]*report.Result{
		"ior-sizes-a.json": iorArchive(sizes, 1),
		"ior-sizes-b.json": iorArchive(sizes, 0.8),
		"ior-one-a.json":   iorArchive([]int64{1 << 20}, 1),
		"ior-one-b.json":   iorArchive([]int64{1 << 20}, 1.15),
		"mdtest-a.json":    mdtestArchive(1),
		"mdtest-b.json":    mdtestArchive(0.7),
		"time-a.json":      timeArchive(4, false),
		"time-b.json":      timeArchive(7, false),
		"time-tail.json":   timeArchive(4, true),
	}
}

// TestSyntheticArchives checks that the synthetic archives in testdata are
// what the builders above write (-update rewrites them).
func TestSyntheticArchives(t *testing.T) {
	for name, r := range synthetic() {
		var b bytes.Buffer
		if err := report.WriteJSON(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, b.Bytes()) {
			t.Errorf("%s differs from what its builder writes; run go test ./report/plot -run TestSyntheticArchives -update", path)
		}
	}
}

// load reads testdata archives.
func load(t *testing.T, names ...string) []Archive {
	t.Helper()
	var out []Archive
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		r, err := report.ReadJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out = append(out, Archive{Name: n, Result: r})
	}
	return out
}
