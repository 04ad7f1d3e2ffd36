package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The real mdtest 4.1.0+dev outputs in testdata/mdtest are described in
// its README.txt. The results below carry those runs' printed figures, so
// the writers' output can be compared with mdtest's; figures mdtest did
// not print (per-rank figures of the first two runs, the second
// iteration's aggregate of the third) are made up, consistently.

// mdtestStat is one printed summary row: max, min, mean, stddev, and the
// per-rank max, min, mean (NaN when not computed).
type mdtestStat struct {
	op string
	v  [7]float64
}

// summary returns s as a MdtestSummary.
func (s mdtestStat) summary() MdtestSummary {
	return MdtestSummary{Operation: s.op, Max: s.v[0], Min: s.v[1], Mean: s.v[2], StdDev: s.v[3],
		RankMax: s.v[4], RankMin: s.v[5], RankMean: s.v[6]}
}

// mdtestSpec is one run shaped like the reference runs: 2 ranks on 1
// node, POSIX, 2000 items per rank, 2 iterations.
type mdtestSpec struct {
	command    string
	start, end time.Time
	header     MdtestHeader
	rate, time []mdtestStat
	ranks      []Row
}

// result returns the Result the mdtest engine would build for s.
func (s mdtestSpec) result() *Result {
	r := New("mdtest")
	r.Run = Run{
		Benchmark: "mdtest",
		Command:   strings.Fields(s.command),
		Version:   "hpcbench 0.1.0 commit 0123456789ab",
		Hostnames: []string{"vm"},
		Ranks:     2,
		Hosts:     1,
		Start:     s.start,
		End:       s.end,
		Env:       map[string]string{EnvMachine: "Linux vm", "transport": "shm"},
	}
	rate := Table{Name: MdtestRateTable, Columns: MdtestRateColumns()}
	for _, st := range s.rate {
		rate.Rows = append(rate.Rows, st.summary().RateRow())
	}
	tm := Table{Name: MdtestTimeTable, Columns: MdtestTimeColumns()}
	for _, st := range s.time {
		tm.Rows = append(tm.Rows, st.summary().TimeRow())
	}
	r.Tables = []Table{
		{Name: MdtestHeaderTable, Columns: MdtestHeaderColumns(), Rows: s.header.Rows()},
		rate,
		tm,
		{Name: MdtestRanksTable, Columns: MdtestRanksColumns(), Rows: s.ranks},
	}
	return r
}

// refHeader returns the header of the reference runs.
func refHeader(kind string) MdtestHeader {
	return MdtestHeader{Nodemap: "11", Path: "md", Capacity: "252.0 GiB", UsedCapacity: "5.5%",
		Inodes: "16.0 Mi", UsedInodes: "2.8%", Tasks: 2, Items: 4000, ItemsPerRank: 2000, ItemKind: kind, Iterations: 2}
}

// fabricate completes a spec of which only the printed rates are known
// (two iterations, the first at the maximum rate, the second at the
// minimum): the time table, the per-iteration aggregate rows and per-rank
// rows, rank 1 faster than rank 0. With rankStats the per-rank statistics
// are computed from those rows, else left NaN.
func fabricate(s *mdtestSpec, rankStats bool) {
	nan := math.NaN()
	for i, st := range s.rate {
		items := 4000.0
		if st.op == MdtestTreeCreate || st.op == MdtestTreeRemove {
			items = 1
		}
		var iterTimes, rankRates, rankTimes []float64
		for iter, rate := range []float64{st.v[0], st.v[1]} {
			if math.IsNaN(rate) {
				continue // the phase did not run
			}
			t := items / rate
			iterTimes = append(iterTimes, t)
			s.ranks = append(s.ranks, MdtestIteration{Iteration: iter, Operation: st.op, Rate: rate, Time: t, Items: int64(items)}.Row())
			if items == 1 {
				continue // rank 0 builds the tree
			}
			for rank := range 2 {
				rt := t * (0.8 + 0.1*float64(1-rank))
				rankTimes, rankRates = append(rankTimes, rt), append(rankRates, 2000/rt)
				s.ranks = append(s.ranks, MdtestRank{Iteration: iter, Rank: rank, Operation: st.op, Rate: 2000 / rt, Time: rt, Items: 2000}.Row())
			}
		}
		ts := Summarize(iterTimes)
		tstat := mdtestStat{st.op, [7]float64{ts.Max, ts.Min, ts.Mean, ts.Stddev, nan, nan, nan}}
		if rankStats {
			if items == 1 { // as mdtest: rank 0's figures
				rankRates, rankTimes = []float64{st.v[0], st.v[1]}, iterTimes
			}
			rr, rt := Summarize(rankRates), Summarize(rankTimes)
			s.rate[i].v[4], s.rate[i].v[5], s.rate[i].v[6] = rr.Max, rr.Min, rr.Mean
			tstat.v[4], tstat.v[5], tstat.v[6] = rt.Max, rt.Min, rt.Mean
		}
		s.time = append(s.time, tstat)
	}
}

// stat4 returns a summary row without per-rank statistics.
func stat4(op string, max, min, mean, sd float64) mdtestStat {
	nan := math.NaN()
	return mdtestStat{op, [7]float64{max, min, mean, sd, nan, nan, nan}}
}

// stat7 returns a summary row with per-rank statistics.
func stat7(op string, rmax, rmin, rmean, max, min, mean, sd float64) mdtestStat {
	return mdtestStat{op, [7]float64{max, min, mean, sd, rmax, rmin, rmean}}
}

// mdtestAllRun mirrors testdata/mdtest/mdtest-human.txt: directories and
// files, all phases, 2 iterations. Directory read, which mdtest measures
// but never prints, is in the tables too.
func mdtestAllRun() *Result {
	h := refHeader(MdtestFilesDirectories)
	h.Warnings = []string{"Read bytes is 0, thus, a read test will actually just open/close"}
	s := mdtestSpec{
		command: "mdtest -a POSIX -n 2000 -i 2 -d md",
		start:   at(18, 5, 1), end: at(18, 5, 23),
		header: h,
		rate: []mdtestStat{
			stat4(MdtestDirCreate, 8371.547, 7112.163, 7741.855, 890.519),
			stat4(MdtestDirStat, 202890.472, 124754.361, 163822.416, 55250.574),
			stat4(MdtestDirRead, 150000.5, 140000.25, 145000.375, 7071.245),
			stat4(MdtestDirRename, 67426.307, 29390.812, 48408.560, 26895.156),
			stat4(MdtestDirRemove, 526.282, 488.127, 507.205, 26.980),
			stat4(MdtestFileCreate, 2791.955, 2725.085, 2758.520, 47.284),
			stat4(MdtestFileStat, 289791.965, 254728.998, 272260.481, 24793.261),
			stat4(MdtestFileRead, 135519.802, 128915.684, 132217.743, 4669.817),
			stat4(MdtestFileRemove, 114019.029, 54285.008, 84152.018, 42238.331),
			stat4(MdtestTreeCreate, 4922.892, 50.183, 2486.538, 3445.526),
			stat4(MdtestTreeRemove, 30.714, 28.502, 29.608, 1.564),
		},
	}
	fabricate(&s, false)
	return s.result()
}

// mdtestFilesOnlyRun mirrors the files-only run (-F -C -T -r) whose
// summary is testdata/mdtest/mdtest-files-only-summary.txt: File read did
// not run.
func mdtestFilesOnlyRun() *Result {
	nan := math.NaN()
	h := refHeader(MdtestFiles)
	h.UsedCapacity = "5.4%"
	s := mdtestSpec{
		command: "mdtest -a POSIX -n 2000 -F -C -T -r -i 2 -d md",
		start:   at(18, 4, 10), end: at(18, 4, 32),
		header: h,
		rate: []mdtestStat{
			stat4(MdtestFileCreate, 2283.060, 1917.763, 2100.411, 258.304),
			stat4(MdtestFileStat, 96439.072, 83217.428, 89828.250, 9349.114),
			stat4(MdtestFileRead, nan, nan, nan, nan),
			stat4(MdtestFileRemove, 52275.893, 48320.779, 50298.336, 2796.688),
			stat4(MdtestTreeCreate, 70.283, 40.388, 55.336, 21.139),
			stat4(MdtestTreeRemove, 7.200, 6.756, 6.978, 0.314),
		},
	}
	fabricate(&s, true)
	return s.result()
}

// mdtestRankStatsRun mirrors testdata/mdtest/mdtest-human-P-rankstats.txt
// and mdtest.csv: files only, -P --showRankStatistics.
func mdtestRankStatsRun() *Result {
	h := refHeader(MdtestFiles)
	h.PrintRateAndTime, h.ShowRankStatistics = true, true
	s := mdtestSpec{
		command: "mdtest -a POSIX -n 2000 -F -w 4096 -e 4096 -i 2 -P --showRankStatistics --saveRankPerformanceDetails=md-ranks.csv -d md",
		start:   at(18, 5, 24), end: at(18, 5, 28),
		header: h,
		rate: []mdtestStat{
			stat7(MdtestFileCreate, 2289.039, 1336.880, 1771.105, 3383.834, 2673.714, 3028.774, 502.131),
			stat7(MdtestFileStat, 155664.570, 93091.942, 130389.549, 254891.539, 185977.497, 220434.518, 48729.586),
			stat7(MdtestFileRead, 54128.782, 34606.897, 46047.342, 83037.437, 68564.908, 75801.173, 10233.623),
			stat7(MdtestFileRemove, 67872.841, 27918.938, 46581.229, 60885.402, 54339.689, 57612.545, 4628.518),
			stat7(MdtestTreeCreate, 6492.731, 1190.549, 3841.640, 6492.731, 1190.549, 3841.640, 3749.209),
			stat7(MdtestTreeRemove, 18.699, 14.501, 16.600, 18.699, 14.501, 16.600, 2.968),
		},
		time: []mdtestStat{
			stat7(MdtestFileCreate, 1.496, 0.874, 1.171, 1.496, 1.182, 1.339, 0.222),
			stat7(MdtestFileStat, 0.021, 0.013, 0.016, 0.022, 0.016, 0.019, 0.004),
			stat7(MdtestFileRead, 0.058, 0.037, 0.045, 0.058, 0.048, 0.053, 0.007),
			stat7(MdtestFileRemove, 0.072, 0.029, 0.050, 0.074, 0.066, 0.070, 0.006),
			stat7(MdtestTreeCreate, 0.001, 0.000, 0.000, 0.001, 0.000, 0.000, 0.000),
			stat7(MdtestTreeRemove, 0.069, 0.053, 0.061, 0.069, 0.053, 0.061, 0.011),
		},
	}
	// Iteration 0's aggregate is mdtest.csv's "all" row; iteration 1's is
	// the other extreme of the summary.
	for _, a := range []MdtestIteration{
		{0, MdtestFileCreate, 2.6737144598e+03, 1.4960460663e+00, 4000},
		{0, MdtestFileStat, 1.8597749720e+05, 2.1507978439e-02, 4000},
		{0, MdtestFileRead, 6.8564908395e+04, 5.8338880539e-02, 4000},
		{0, MdtestFileRemove, 6.0885401772e+04, 6.5697193146e-02, 4000},
		{0, MdtestTreeCreate, 2.3810979279e+03, 8.3994865417e-04, 1},
		{0, MdtestTreeRemove, 2.6467996491e+01, 7.5562953949e-02, 1},
		{1, MdtestFileCreate, 3383.834, 1.182, 4000},
		{1, MdtestFileStat, 254891.539, 0.016, 4000},
		{1, MdtestFileRead, 83037.437, 0.048, 4000},
		{1, MdtestFileRemove, 54339.689, 0.074, 4000},
		{1, MdtestTreeCreate, 6492.731, 0.000154, 1},
		{1, MdtestTreeRemove, 18.699, 0.053, 1},
	} {
		s.ranks = append(s.ranks, a.Row())
	}
	ops := []string{MdtestFileCreate, MdtestFileStat, MdtestFileRead, MdtestFileRemove}
	for i, v := range [][8]float64{
		{1.3368804527e+03, 1.4960200787e+00, 9.3091942160e+04, 2.1484136581e-02, 3.4606896950e+04, 5.7791948318e-02, 3.0455300610e+04, 6.5670013428e-02},
		{1.7665422862e+03, 1.1321551800e+00, 1.5566456976e+05, 1.2848138809e-02, 5.4128782062e+04, 3.6948919296e-02, 6.0077834834e+04, 3.3290147781e-02},
		{1.6919573911e+03, 1.1820628643e+00, 1.2866752562e+05, 1.5543937683e-02, 4.8641736781e+04, 4.1116952896e-02, 2.7918938438e+04, 7.1635961533e-02},
		{2.2890393035e+03, 8.7372899055e-01, 1.4413415808e+05, 1.3875961304e-02, 4.6811951026e+04, 4.2724132538e-02, 6.7872840695e+04, 2.9466867447e-02},
	} {
		for j, op := range ops {
			s.ranks = append(s.ranks, MdtestRank{Iteration: i / 2, Rank: i % 2, Operation: op,
				Rate: v[2*j], Time: v[2*j+1], Items: 2000}.Row())
		}
	}
	return s.result()
}

// mdtestErrorsRun is the files-only run with -Z, failures in two phases,
// a warning, no FS line, no Nodemap and a development build.
func mdtestErrorsRun() *Result {
	r := mdtestFilesOnlyRun()
	r.Run.Version = "hpcbench dev"
	r.Run.Command = []string{"/usr/bin/hpcbench", "mdtest", "-n", "2000", "-F", "-Z", "-d", "/scratch/it's"}
	h := refHeader(MdtestFiles)
	h.Nodemap, h.Capacity, h.Path = "", "", "/scratch/it's"
	h.PrintTime = true
	h.Warnings = []string{"Read bytes is 0, thus, a read test will actually just open/close"}
	mdtestTable(r, MdtestHeaderTable).Rows = h.Rows()
	r.Tables = append(r.Tables, Table{Name: MdtestErrorsTable, Columns: MdtestErrorsColumns(), Rows: []Row{
		MdtestError{Phase: MdtestFileStat, Count: 3, Op: "stat", Path: "/scratch/it's/file.mdtest.1.7", Err: "no such file or directory"}.Row(),
		MdtestError{Phase: MdtestFileRemove, Count: 1, Op: "unlink", Path: "/scratch/it's/file.mdtest.0.3", Err: "permission denied"}.Row(),
	}})
	return r
}

// mdtestTable returns r's table named name.
func mdtestTable(r *Result, name string) *Table { return tableNamed(r, name) }

// mdtestGolden compares got with testdata/mdtest/name, or rewrites it
// with -update; on a mismatch it writes name.got next to it.
func mdtestGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", "mdtest", name), got)
}

// readMdtestRef reads a real mdtest output from testdata/mdtest.
func readMdtestRef(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mdtest", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mdtestWriters returns the four mdtest writers.
func mdtestWriters() []formatWriter {
	return []formatWriter{
		{"human.golden", WriteMdtest},
		{"json.golden", WriteMdtestJSON},
		{"csv.golden", WriteMdtestCSV},
		{"ranks.golden", WriteMdtestRankCSV},
	}
}

// mdtestRuns returns the runs the golden files are made of.
func mdtestRuns() []struct {
	name string
	r    *Result
} {
	return []struct {
		name string
		r    *Result
	}{
		{"all", mdtestAllRun()},
		{"files-only", mdtestFilesOnlyRun()},
		{"rankstats", mdtestRankStatsRun()},
		{"errors-Z", mdtestErrorsRun()},
	}
}

func TestWriteMdtestGolden(t *testing.T) {
	for _, c := range mdtestRuns() {
		for _, w := range mdtestWriters() {
			var b bytes.Buffer
			if err := w.write(&b, c.r); err != nil {
				t.Fatalf("%s %s: %v", c.name, w.suffix, err)
			}
			mdtestGolden(t, c.name+"-"+w.suffix, b.Bytes())
		}
	}
}

// TestWriteMdtestMatchesMdtest: the human output is mdtest's, line by line
// and byte for byte, except the program name in the "was launched" line.
// The dates match because the results carry the reference runs' times.
func TestWriteMdtestMatchesMdtest(t *testing.T) {
	for _, c := range []struct {
		ref string
		r   *Result
	}{
		{"mdtest-human.txt", mdtestAllRun()},
		{"mdtest-human-P-rankstats.txt", mdtestRankStatsRun()},
	} {
		var b bytes.Buffer
		if err := WriteMdtest(&b, c.r); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(b.String(), "\n")
		want := strings.Split(readMdtestRef(t, c.ref), "\n")
		if len(got) != len(want) {
			t.Errorf("%s: %d lines, mdtest has %d", c.ref, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if i == 2 {
				if g, w := got[i], strings.Replace(want[i], "mdtest-4.1.0+dev", "mdtest-hpcbench-0.1.0", 1); g != w {
					t.Errorf("%s: banner %q, want %q", c.ref, g, w)
				}
				continue
			}
			if got[i] != want[i] {
				t.Errorf("%s: line %d:\n got %q\nwant %q", c.ref, i+1, got[i], want[i])
			}
		}
	}
	// Of the files-only run only the summary was kept: it is the end of
	// the output, File read (not run) printed as 0.000.
	var b bytes.Buffer
	if err := WriteMdtest(&b, mdtestFilesOnlyRun()); err != nil {
		t.Fatal(err)
	}
	want := readMdtestRef(t, "mdtest-files-only-summary.txt")
	if !strings.HasSuffix(b.String(), "\n\n"+want) {
		t.Errorf("files-only output does not end with mdtest's summary:\n%s\nwant the end:\n%s", b.String(), want)
	}
}

// TestWriteMdtestRankCSVMatchesMdtest: byte for byte mdtest's
// --saveRankPerformanceDetails file.
func TestWriteMdtestRankCSVMatchesMdtest(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMdtestRankCSV(&b, mdtestRankStatsRun()); err != nil {
		t.Fatal(err)
	}
	if want := readMdtestRef(t, "mdtest.csv"); b.String() != want {
		t.Errorf("got:\n%s\nwant (mdtest):\n%s", b.Bytes(), want)
	}
	// It reads as CSV when short records are allowed, as mdtest's does.
	rd := csv.NewReader(&b)
	rd.FieldsPerRecord = -1
	recs, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || len(recs[0]) != 24 || len(recs[1]) != 24 || len(recs[2]) != 20 || recs[1][0] != "all" || recs[1][1] != "2000" {
		t.Errorf("records: %q", recs)
	}
}

// TestWriteMdtestJSON: the document parses, has the documented keys in
// order, and writes null, not 0, for what was not measured.
func TestWriteMdtestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMdtestJSON(&b, mdtestFilesOnlyRun()); err != nil {
		t.Fatal(err)
	}
	doc, err := parseJSONNode(b.Bytes())
	if err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, b.Bytes())
	}
	wantKeys := []string{"schema", "version", "began", "finished", "command line", "machine", "tasks", "nodes",
		"nodemap", "iterations", "path", "fs", "items", "warnings", "summary", "results", "errors"}
	if !slices.Equal(doc.keys, wantKeys) {
		t.Errorf("keys %q, want %q", doc.keys, wantKeys)
	}
	summaryKeys := []string{"operation", "unit", "max", "min", "mean", "stddev", "rankMax", "rankMin", "rankMean",
		"timeUnit", "timeMax", "timeMin", "timeMean", "timeStddev", "timeRankMax", "timeRankMin", "timeRankMean"}
	for _, e := range doc.kids["summary"].elems {
		if !slices.Equal(e.keys, summaryKeys) {
			t.Errorf("summary keys %q, want %q", e.keys, summaryKeys)
		}
	}
	for _, e := range doc.kids["results"].elems {
		if want := []string{"iter", "operation", "rate", "time", "items"}; !slices.Equal(e.keys, want) {
			t.Errorf("results keys %q, want %q", e.keys, want)
		}
	}

	var d struct {
		Schema     string
		Began      string
		Command    string `json:"command line"`
		Tasks      int
		Iterations int
		FS         map[string]string
		Items      struct {
			Total, PerRank int
			Kind           string
		}
		Summary []map[string]any
		Results []map[string]any
		Errors  []any
	}
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != MdtestSchema || d.Began != "2026-11-29T18:04:10Z" || d.Tasks != 2 || d.Iterations != 2 ||
		d.FS["usedCapacity"] != "5.4%" || d.Items.Total != 4000 || d.Items.PerRank != 2000 || d.Items.Kind != "files" {
		t.Errorf("header fields: %+v", d)
	}
	if want := "mdtest '-a' 'POSIX' '-n' '2000' '-F' '-C' '-T' '-r' '-i' '2' '-d' 'md'"; d.Command != want {
		t.Errorf("command line %q, want %q", d.Command, want)
	}
	read := d.Summary[2]
	if read["operation"] != MdtestFileRead || read["max"] != nil || read["timeMean"] != nil || read["unit"] != "ops/s" || read["timeUnit"] != "s" {
		t.Errorf("File read (not run): %v", read)
	}
	if s := d.Summary[0]; s["max"] != 2283.06 || s["rankMax"] == nil || s["timeMax"] == nil {
		t.Errorf("File creation: %v", s)
	}
	if len(d.Results) != 10 || d.Results[0]["iter"] != 0.0 || d.Results[0]["items"] != 4000.0 || d.Errors == nil || len(d.Errors) != 0 {
		t.Errorf("results %v, errors %v", d.Results, d.Errors)
	}

	// Without per-rank statistics, FS and a start time: null.
	b.Reset()
	r := mdtestAllRun()
	r.Run.Start = time.Time{}
	h := refHeader(MdtestFilesDirectories)
	h.Capacity = ""
	mdtestTable(r, MdtestHeaderTable).Rows = h.Rows()
	if err := WriteMdtestJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var all map[string]any
	if err := json.Unmarshal(b.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	s0 := all["summary"].([]any)[0].(map[string]any)
	if v, ok := s0["rankMax"]; !ok || v != nil || all["fs"] != nil || all["began"] != nil {
		t.Errorf("want nulls: rankMax %v (%v), fs %v, began %v", v, ok, all["fs"], all["began"])
	}
	if ops := len(all["summary"].([]any)); ops != 11 {
		t.Errorf("%d summary entries, want 11 (Directory read included)", ops)
	}
}

// TestWriteMdtestCSV: the summary CSV has units in its header, one record
// per operation, and empty cells for what was not measured.
func TestWriteMdtestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMdtestCSV(&b, mdtestFilesOnlyRun()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 7 || recs[0][1] != "max(ops/s)" || recs[0][8] != "timeMax(s)" {
		t.Fatalf("records %q", recs)
	}
	if r := recs[1]; r[0] != MdtestFileCreate || r[1] != "2283.06" || r[4] != "258.304" {
		t.Errorf("File creation %q", r)
	}
	if r := recs[3]; r[0] != MdtestFileRead || strings.Join(r[1:], "") != "" {
		t.Errorf("File read (not run) %q, want empty cells", r)
	}
}

// TestWriteMdtestErrors: failures, -Z (the time table alone), warnings and
// a quoted argument, in mdtest's places.
func TestWriteMdtestErrors(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMdtest(&b, mdtestErrorsRun()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"mdtest-hpcbench-dev was launched with 2 total task(s) on 1 node(s)\n" +
			`Command line used: /usr/bin/hpcbench mdtest '-n' '2000' '-F' '-Z' '-d' '/scratch/it'\''s'` + "\n" +
			"WARNING: Read bytes is 0, thus, a read test will actually just open/close\n" +
			"Path                : /scratch/it's\n" +
			"2 tasks, 4000 files\n" +
			"ERROR: 3 operations failed in File stat; first: stat /scratch/it's/file.mdtest.1.7: no such file or directory\n" +
			"ERROR: 1 operation failed in File removal; first: unlink /scratch/it's/file.mdtest.0.3: permission denied\n" +
			"\nSUMMARY time (in ms/op): (of 2 iterations)\n",
		"   File read                       0.000          0.000          0.000          0.000\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"SUMMARY rate", "Nodemap", "FS  "} {
		if strings.Contains(out, absent) {
			t.Errorf("output has %q:\n%s", absent, out)
		}
	}
	b.Reset()
	if err := WriteMdtestJSON(&b, mdtestErrorsRun()); err != nil {
		t.Fatal(err)
	}
	var d struct{ Errors []map[string]any }
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Errors) != 2 || d.Errors[0]["phase"] != MdtestFileStat || d.Errors[0]["count"] != 3.0 ||
		d.Errors[0]["op"] != "stat" || d.Errors[0]["error"] != "no such file or directory" {
		t.Errorf("errors %v", d.Errors)
	}
}

// TestWriteMdtestLayoutFlags: -P prints the rate and the time table, -Z
// the time table alone, -P winning over -Z as in mdtest.
func TestWriteMdtestLayoutFlags(t *testing.T) {
	for _, c := range []struct {
		p, z       bool
		rate, time bool
	}{
		{false, false, true, false},
		{true, false, true, true},
		{false, true, false, true},
		{true, true, true, true},
	} {
		r := mdtestAllRun()
		h := refHeader(MdtestFilesDirectories)
		h.PrintRateAndTime, h.PrintTime = c.p, c.z
		mdtestTable(r, MdtestHeaderTable).Rows = h.Rows()
		var b bytes.Buffer
		if err := WriteMdtest(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		rate := strings.Contains(out, "\n\nSUMMARY rate (in ops/sec): (of 2 iterations)\n"+mdtestHeading+"\n")
		tm := strings.Contains(out, "\n\nSUMMARY time (in ms/op): (of 2 iterations)\n"+mdtestHeading+"\n")
		if rate != c.rate || tm != c.time {
			t.Errorf("-P %v -Z %v: rate table %v, time table %v; want %v, %v:\n%s", c.p, c.z, rate, tm, c.rate, c.time, out)
		}
		if c.time && !strings.Contains(out, "   Directory removal               8.195          7.600          7.898          0.420\n") {
			t.Errorf("-P %v -Z %v: time table lacks Directory removal in seconds:\n%s", c.p, c.z, out)
		}
	}
}

func TestMdtestErrorLine(t *testing.T) {
	for _, c := range []struct {
		e    mdtestErrorRow
		want string
	}{
		{mdtestErrorRow{phase: "File stat", op: "stat", path: "/d/f", err: "no such file or directory", count: 3},
			"ERROR: 3 operations failed in File stat; first: stat /d/f: no such file or directory"},
		{mdtestErrorRow{phase: "Tree creation", path: "/d", err: "file exists", count: 1},
			"ERROR: 1 operation failed in Tree creation; first: /d: file exists"},
		{mdtestErrorRow{phase: "File read", err: "short read", count: math.NaN()},
			"ERROR: operations failed in File read; first: short read"},
		{mdtestErrorRow{phase: "File read", count: 2}, "ERROR: 2 operations failed in File read"},
	} {
		if got := mdtestErrorLine(c.e); got != c.want {
			t.Errorf("mdtestErrorLine(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}

func TestMdtestCommandLine(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"mdtest"}, "mdtest"},
		{[]string{"mdtest", "-n", "10", "-d", "a b"}, "mdtest '-n' '10' '-d' 'a b'"},
		{[]string{"./hpcbench", "mdtest", "-d", "it's"}, `./hpcbench mdtest '-d' 'it'\''s'`},
		{[]string{"hpcbench", "ior", "-w"}, "hpcbench 'ior' '-w'"},
		{[]string{"mdtest", "-d", "a\nb"}, `mdtest '-d' '"a\nb"'`},
	} {
		if got := mdtestCommandLine(c.argv); got != c.want {
			t.Errorf("mdtestCommandLine(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestMdtestTime(t *testing.T) {
	if got, want := MdtestTime(time.Date(2026, 1, 4, 5, 6, 7, 0, time.FixedZone("X", 3600))), "01/04/2026 05:06:07"; got != want {
		t.Errorf("MdtestTime = %q, want %q", got, want)
	}
}

// TestMdtestResultGeneric: an mdtest result is an ordinary Result too: the
// generic writers render it and the archive reads back to the same mdtest
// output.
func TestMdtestResultGeneric(t *testing.T) {
	for _, c := range mdtestRuns() {
		for name, w := range map[string]func(io.Writer, *Result) error{"text": WriteText, "csv": WriteCSV} {
			if err := w(io.Discard, c.r); err != nil {
				t.Errorf("%s: %s: %v", c.name, name, err)
			}
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, c.r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range mdtestWriters() {
			var want, got bytes.Buffer
			if err := w.write(&want, c.r); err != nil {
				t.Fatal(err)
			}
			if err := w.write(&got, back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s %s after a JSON round trip differs:\n%s", c.name, w.suffix, got.Bytes())
			}
		}
	}
}

func TestWriteMdtestRejects(t *testing.T) {
	drop := func(name string) func(*Result) {
		return func(r *Result) {
			r.Tables = slices.DeleteFunc(r.Tables, func(t Table) bool { return t.Name == name })
		}
	}
	dropColumn := func(table, col string) func(*Result) {
		return func(r *Result) {
			t := mdtestTable(r, table)
			labels, metrics := t.split()
			li := slices.IndexFunc(labels, func(c Column) bool { return c.Name == col })
			mi := slices.IndexFunc(metrics, func(c Column) bool { return c.Name == col })
			t.Columns = slices.DeleteFunc(t.Columns, func(c Column) bool { return c.Name == col })
			for i := range t.Rows {
				if li >= 0 {
					t.Rows[i].Labels = slices.Delete(t.Rows[i].Labels, li, li+1)
				}
				if mi >= 0 {
					t.Rows[i].Metrics = slices.Delete(t.Rows[i].Metrics, mi, mi+1)
				}
			}
		}
	}
	headerRow := func(name, value string) func(*Result) {
		return func(r *Result) {
			t := mdtestTable(r, MdtestHeaderTable)
			for i := range t.Rows {
				if t.Rows[i].Labels[0] == name {
					if value == "" {
						t.Rows = slices.Delete(t.Rows, i, i+1)
					} else {
						t.Rows[i].Labels[1] = value
					}
					return
				}
			}
			panic("no header row " + name)
		}
	}
	all := []string{"human", "json", "csv", "ranks"}
	withHeader := []string{"human", "json", "ranks"}
	withSummary := []string{"human", "json", "csv"}
	checkBadResults(t, mdtestWriters(), mdtestErrorsRun, []badResult{
		{"invalid", func(r *Result) { r.Run.Benchmark = "" }, all, "run.benchmark: empty, want the name of the benchmark that ran"},
		{"nil", nil, all, "invalid result: nil"},
		{"no header", drop(MdtestHeaderTable), withHeader, `mdtest result has no table "mdtest header"`},
		{"no rate", drop(MdtestRateTable), withSummary, `no table "mdtest rate"`},
		{"no time", drop(MdtestTimeTable), withSummary, `no table "mdtest time"`},
		{"no ranks", drop(MdtestRanksTable), []string{"json", "ranks"}, `no table "mdtest ranks"`},
		{"no Path", headerRow(MdtestPath, ""), withHeader, `table "mdtest header": no row "Path"`},
		{"no items per rank", headerRow(MdtestItemsPerRank, ""), withHeader, `no row "items per rank"`},
		{"tasks", headerRow(MdtestTasks, "two"), withHeader, `row "tasks": "two" is not a non-negative integer`},
		{"kind", headerRow(MdtestItemKind, "inodes"), withHeader, `row "item kind": "inodes"`},
		{"flag", headerRow(MdtestPrintTime, "yes"), withHeader, `row "print time": "yes", want 0 or 1`},
		{"half FS", func(r *Result) {
			t := mdtestTable(r, MdtestHeaderTable)
			t.Rows = append(t.Rows, MdtestHeaderRow(MdtestCapacity, "1.0 GiB"))
		}, withHeader, "1 of 4 present, want all or none"},
		{"two paths", func(r *Result) {
			t := mdtestTable(r, MdtestHeaderTable)
			t.Rows = append(t.Rows, MdtestHeaderRow(MdtestPath, "/elsewhere"))
		}, withHeader, `a second row "Path"`},
		{"no stddev", dropColumn(MdtestRateTable, "stddev"), withSummary, `table "mdtest rate": no metric column "stddev"`},
		{"no rankMean", dropColumn(MdtestTimeTable, "rankMean"), withSummary, `table "mdtest time": no metric column "rankMean"`},
		{"no operation", dropColumn(MdtestRateTable, "operation"), withSummary, `no label column "operation"`},
		{"no items", dropColumn(MdtestRanksTable, "items"), []string{"json", "ranks"}, `table "mdtest ranks": no metric column "items"`},
		{"time unit", func(r *Result) { mdtestTable(r, MdtestTimeTable).Columns[1].Unit = "ops/s" }, withSummary,
			`column "max": unit "ops/s" does not convert to s`},
		{"unknown op", func(r *Result) { mdtestTable(r, MdtestRateTable).Rows[1].Labels[0] = "File chmod" }, withSummary,
			`row 1: operation "File chmod" is none of mdtest's`},
		{"order", func(r *Result) {
			t := mdtestTable(r, MdtestRateTable)
			t.Rows[0], t.Rows[1] = t.Rows[1], t.Rows[0]
		}, withSummary, `row 1: operation "File creation" after "File stat"; want each once, in mdtest's order`},
		{"mismatch", func(r *Result) {
			rt, tt := mdtestTable(r, MdtestRateTable), mdtestTable(r, MdtestTimeTable)
			rt.Rows = slices.Delete(rt.Rows, 2, 3) // File read
			tt.Rows = slices.Delete(tt.Rows, 3, 4) // File removal
		}, withSummary, `table "mdtest time": row 2: operation "File read", table "mdtest rate" has "File removal"`},
		{"short time", func(r *Result) {
			t := mdtestTable(r, MdtestTimeTable)
			t.Rows = t.Rows[:3]
		}, withSummary, `3 operations, table "mdtest rate" has 6`},
		{"rank", func(r *Result) { mdtestTable(r, MdtestRanksTable).Rows[4].Labels[1] = "everyone" }, []string{"json", "ranks"},
			`row 4: column "rank": "everyone" is neither a rank nor "all"`},
		{"iteration", func(r *Result) { mdtestTable(r, MdtestRanksTable).Rows[0].Labels[0] = "-1" }, []string{"json", "ranks"},
			`row 0: column "iteration": -1 is negative`},
		{"error phase", func(r *Result) { mdtestTable(r, MdtestErrorsTable).Rows[1].Labels[0] = "" }, all,
			`table "mdtest errors": row 1: no phase`},
		{"error count unit", func(r *Result) { mdtestTable(r, MdtestErrorsTable).Columns[4].Unit = "s" }, all,
			`column "count": unit "s", want none`},
	})
}
