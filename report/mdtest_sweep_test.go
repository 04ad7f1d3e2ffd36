package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// mdtestDate returns 12/01/2026 at h:m:s, the day of the sweep and
// --print-all-procs reference runs.
func mdtestDate(h, m, s int) time.Time {
	return time.Date(2026, 12, 1, h, m, s, 0, time.UTC)
}

// mdtestSweepRuns mirrors testdata/mdtest/mdtest-sweep.txt, mpiexec -n 2
// mdtest -a POSIX -n 4 -F -f 1 -l 2 -d md: one Result per task count, as
// the engine's Sweep returns them (Run.Ranks the job's 2, the header's
// tasks the count's). The time tables mdtest did not print are NaN.
func mdtestSweepRuns() []*Result {
	nan := math.NaN()
	run := func(tasks int, rates [6]float64) *Result {
		h := MdtestHeader{Nodemap: "11", Path: "md", Capacity: "252.0 GiB", UsedCapacity: "5.3%",
			Inodes: "16.0 Mi", UsedInodes: "2.5%", Tasks: tasks, Items: int64(4 * tasks), ItemsPerRank: 4,
			ItemKind: MdtestFiles, Iterations: 1, Warnings: []string{"Read bytes is 0, thus, a read test will actually just open/close"}}
		s := mdtestSpec{command: "mdtest -a POSIX -n 4 -F -f 1 -l 2 -d md",
			start: mdtestDate(19, 36, 46), end: mdtestDate(19, 36, 48), header: h}
		for i, op := range []string{MdtestFileCreate, MdtestFileStat, MdtestFileRead, MdtestFileRemove, MdtestTreeCreate, MdtestTreeRemove} {
			s.rate = append(s.rate, stat4(op, rates[i], rates[i], rates[i], 0))
			s.time = append(s.time, stat4(op, nan, nan, nan, nan))
			s.ranks = append(s.ranks, MdtestIteration{Iteration: 0, Operation: op, Rate: rates[i], Time: 1, Items: 4}.Row())
		}
		return s.result()
	}
	return []*Result{
		run(1, [6]float64{26843.546, 89240.511, 798915.048, 65536.000, 55924.053, 1741.821}),
		run(2, [6]float64{3818.645, 11037.642, 10025.226, 59283.449, 1412.699, 4328.487}),
	}
}

// mdtestAllProcsRun mirrors testdata/mdtest/mdtest-print-all-procs.txt,
// mpiexec -n 2 mdtest -a POSIX -n 4 -F -P --print-all-procs -d md: the
// per-rank rows carry the printed rates and times, and there are none for
// the tree, for which mdtest prints 0.
func mdtestAllProcsRun() *Result {
	h := MdtestHeader{Nodemap: "11", Path: "md", Capacity: "252.0 GiB", UsedCapacity: "5.2%",
		Inodes: "16.0 Mi", UsedInodes: "2.5%", Tasks: 2, Items: 8, ItemsPerRank: 4,
		ItemKind: MdtestFiles, Iterations: 1, PrintRateAndTime: true, PrintAllProcs: true,
		Warnings: []string{"Read bytes is 0, thus, a read test will actually just open/close"}}
	s := mdtestSpec{command: "mdtest -a POSIX -n 4 -F -P --print-all-procs -d md",
		start: mdtestDate(19, 36, 55), end: mdtestDate(19, 36, 56), header: h}
	ops := []string{MdtestFileCreate, MdtestFileStat, MdtestFileRead, MdtestFileRemove, MdtestTreeCreate, MdtestTreeRemove}
	rates := []float64{4618.642, 21331.489, 542.706, 612.128, 3266.592, 217.108}
	times := []float64{0.002, 0, 0.015, 0.013, 0, 0.005}
	perRank := [][2][2]float64{ // rate, time of ranks 0 and 1
		{{2.976267e+03, 1.343966e-03}, {2.830642e+03, 1.413107e-03}},
		{{3.355443e+05, 1.192093e-05}, {6.710886e+05, 5.960464e-06}},
		{{5.785247e+05, 6.914139e-06}, {5.785247e+05, 6.914139e-06}},
		{{7.019756e+04, 5.698204e-05}, {1.331525e+05, 3.004074e-05}},
	}
	for i, op := range ops {
		s.rate = append(s.rate, stat4(op, rates[i], rates[i], rates[i], 0))
		s.time = append(s.time, stat4(op, times[i], times[i], times[i], 0))
		s.ranks = append(s.ranks, MdtestIteration{Iteration: 0, Operation: op, Rate: rates[i], Time: times[i], Items: 8}.Row())
		if i < len(perRank) {
			for rank, f := range perRank[i] {
				s.ranks = append(s.ranks, MdtestRank{Iteration: 0, Rank: rank, Operation: op, Rate: f[0], Time: f[1], Items: 4}.Row())
			}
		}
	}
	return s.result()
}

// TestWriteMdtestSweepMatchesMdtest: a sweep's and a --print-all-procs
// run's human output is mdtest's, line by line, except the program name
// in the "was launched" line.
func TestWriteMdtestSweepMatchesMdtest(t *testing.T) {
	for _, c := range []struct {
		ref string
		rs  []*Result
	}{
		{"mdtest-sweep.txt", mdtestSweepRuns()},
		{"mdtest-print-all-procs.txt", []*Result{mdtestAllProcsRun()}},
	} {
		var b bytes.Buffer
		if err := WriteMdtestSweep(&b, c.rs); err != nil {
			t.Fatalf("%s: %v", c.ref, err)
		}
		got := strings.Split(b.String(), "\n")
		want := strings.Split(readMdtestRef(t, c.ref), "\n")
		if len(got) != len(want) {
			t.Errorf("%s: %d lines, mdtest has %d", c.ref, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			w := want[i]
			if i == 2 {
				w = strings.Replace(w, "mdtest-4.1.0+dev", "mdtest-hpcbench-0.1.0", 1)
			}
			if got[i] != w {
				t.Errorf("%s: line %d:\n got %q\nwant %q", c.ref, i+1, got[i], w)
			}
		}
	}
}

// TestWriteMdtestSweepFormats: a sweep's JSON is an array of the
// documents, its CSV has a tasks column, its per-rank CSV one header; one
// Result gives exactly what the single-run writers give.
func TestWriteMdtestSweepFormats(t *testing.T) {
	rs := mdtestSweepRuns()
	var b bytes.Buffer
	if err := WriteMdtestSweepJSON(&b, rs); err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	if err := json.Unmarshal(b.Bytes(), &docs); err != nil || len(docs) != 2 {
		t.Fatalf("sweep JSON: %v, %d documents\n%s", err, len(docs), b.Bytes())
	}
	if docs[0]["tasks"] != 1.0 || docs[1]["tasks"] != 2.0 {
		t.Errorf("tasks %v and %v, want 1 and 2", docs[0]["tasks"], docs[1]["tasks"])
	}
	b.Reset()
	if err := WriteMdtestSweepCSV(&b, rs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 1+2*6 || recs[0][0] != "tasks" || recs[1][0] != "1" || recs[7][0] != "2" || recs[7][1] != MdtestFileCreate {
		t.Errorf("sweep CSV: %v\n%q", err, recs)
	}
	b.Reset()
	if err := WriteMdtestSweepRankCSV(&b, rs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "rank,items,") ||
		!strings.HasPrefix(lines[1], "all,4,") || !strings.HasPrefix(lines[2], "all,4,") {
		t.Errorf("sweep rank CSV:\n%s", b.String())
	}
	for _, w := range []struct {
		name   string
		single func(io.Writer, *Result) error
		sweep  func(io.Writer, []*Result) error
	}{
		{"human", WriteMdtest, WriteMdtestSweep},
		{"json", WriteMdtestJSON, WriteMdtestSweepJSON},
		{"csv", WriteMdtestCSV, WriteMdtestSweepCSV},
		{"ranks", WriteMdtestRankCSV, WriteMdtestSweepRankCSV},
	} {
		var one, many bytes.Buffer
		if err := w.single(&one, rs[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.sweep(&many, rs[:1]); err != nil || many.String() != one.String() {
			t.Errorf("%s: a sweep of one differs from the single writer (%v)", w.name, err)
		}
		// A broken second run fails the whole sweep, naming it, with
		// nothing written.
		bad := mdtestSweepRuns()
		bad[1].Tables = bad[1].Tables[:1]
		many.Reset()
		if err := w.sweep(&many, bad); err == nil || !strings.Contains(err.Error(), "run 2 of 2") || many.Len() != 0 {
			t.Errorf("%s: broken second run: %v, wrote %d bytes", w.name, err, many.Len())
		}
		if err := w.sweep(&many, nil); err == nil || many.Len() != 0 {
			t.Errorf("%s: no results: %v", w.name, err)
		}
	}
}

// TestWriteMdtestAllProcsNeedsRanks: --print-all-procs needs the ranks
// table, and says so.
func TestWriteMdtestAllProcsNeedsRanks(t *testing.T) {
	r := mdtestAllProcsRun()
	r.Tables = r.Tables[:3]
	var b bytes.Buffer
	if err := WriteMdtest(&b, r); err == nil || !strings.Contains(err.Error(), `no table "mdtest ranks"`) || b.Len() != 0 {
		t.Errorf("WriteMdtest without the ranks table: %v, wrote %d bytes", err, b.Len())
	}
}
