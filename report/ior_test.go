package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The real IOR 4.1.0+dev outputs in testdata/ior (copied from
// shared/reference/ior; see its README) were produced by
//
//	mpiexec -n 2 ior -a POSIX -b 256m -t 1m -w -r -W -R -i 3 -o ior_shared
//
// (ior-human.txt; ior.json and ior.csv add -O summaryFormat=JSON|CSV) and
// ior-ranks.csv by mpiexec -n 2 ior -b 64m -t 1m -i 2 -O
// saveRankPerformanceDetailsCSV=ranks.csv. The results below carry those
// runs' figures, so the writers' output can be compared with IOR's.

// iorSpec describes one test of a run shaped like the reference runs: 2
// tasks on 1 node, POSIX, -b 256m -t 1m -W -R, one shared file.
type iorSpec struct {
	id       int
	start    time.Time
	file     string
	usedCap  string
	reps     int
	verbose  int
	rows     [][7]float64 // bw, iops, latency, open, wrrd, close, total: write and read of each rep
	errors   map[int]float64
	removes  []float64     // remove totals per rep, when the files were removed
	summary  [2][9]float64 // write, read: bw max min mean sd, ops max min mean sd, mean time
	stone    [2][2]float64 // write, read: Stonewall(s), Stonewall(MiB)
	stonewll int           // -D seconds, 0 for none
}

// iorRunResult returns a Result holding the tests in specs as the IOR
// engine builds it.
func iorRunResult(began, finished time.Time, command string, specs ...iorSpec) *Result {
	r := New("ior")
	r.Run = Run{
		Benchmark: "ior",
		Command:   strings.Fields(command),
		Version:   "hpcbench 0.1.0 commit 0123456789ab",
		Hostnames: []string{"vm"},
		Ranks:     2,
		Hosts:     1,
		Start:     began,
		End:       finished,
		Env:       map[string]string{EnvMachine: "Linux vm", "transport": "shm"},
	}
	summary := Table{Name: IORSummaryTable, Columns: IORSummaryColumns()}
	for _, s := range specs {
		r.Tables = append(r.Tables, iorTestTables(s)...)
		for op, access := range []string{IORWrite, IORRead} {
			m := s.summary[op]
			summary.Rows = append(summary.Rows, IORSummary{
				Operation: access, TestID: s.id, Tasks: 2, TasksPerNode: 2, Reps: s.reps,
				ReorderOffset: 1, Segments: 1, BlockSize: 256 << 20, TransferSize: 1 << 20, API: "POSIX",
				BWMax: m[0], BWMin: m[1], BWMean: m[2], BWStdDev: m[3],
				OPsMax: m[4], OPsMin: m[5], OPsMean: m[6], OPsStdDev: m[7], MeanTime: m[8],
				StonewallTime: s.stone[op][0], StonewallBW: s.stone[op][1], AggMiB: 512,
			}.Row())
		}
	}
	r.Tables = append(r.Tables, summary)
	return r
}

// iorTestTables returns the tables of one test.
func iorTestTables(s iorSpec) []Table {
	header := Table{Name: IORTableName(s.id, IORHeader), Columns: IORHeaderColumns(), Rows: []Row{
		IORHeaderRow(IORTestID, fmt.Sprint(s.id)),
		IORHeaderRow(IORStartTime, IORHeaderTime(s.start)),
		IORHeaderRow(IORPath, s.file),
		IORHeaderRow(IORCapacity, "252.0 GiB"),
		IORHeaderRow(IORUsedCapacity, s.usedCap),
		IORHeaderRow(IORInodes, "16.0 Mi"),
		IORHeaderRow(IORUsedInodes, "2.8%"),
	}}
	str, num := IORStringSetting, IORIntSetting
	opts := []Row{
		str("api", "POSIX"), str("apiVersion", ""), str("test filename", s.file),
		str("access", "single-shared-file"), str("type", "independent"), num("segments", 1),
		str("ordering in a file", "sequential"), str("ordering inter file", "no tasks offsets"),
		num("nodes", 1), num("tasks", 2), num("clients per node", 2), str("memoryBuffer", "CPU"),
		str("dataAccess", "CPU"), str("GPUDirect", "0"), num("repetitions", int64(s.reps)),
		str("xfersize", "1 MiB"), str("blocksize", "256 MiB"), str("aggregate filesize", "512 MiB"),
	}
	if s.verbose > 0 {
		opts = append(opts, num("verbose", int64(s.verbose)))
	}
	if s.stonewll > 0 {
		opts = append(opts, num("stonewallingTime", int64(s.stonewll)), num("stoneWallingWearOut", 0))
	}
	params := []Row{
		num("testID", int64(s.id)), num("refnum", 0), str("api", "POSIX"), str("platform", "vm(Linux)"),
		str("testFileName", s.file), num("deadlineForStonewall", int64(s.stonewll)), num("stoneWallingWearOut", 0),
		num("maxTimeDuration", 0), num("outlierThreshold", 0), str("options", "(null)"), num("dryRun", 0),
		num("nodes", 1), num("memoryPerTask", 0), num("memoryPerNode", 0), num("tasksPerNode", 2),
		num("repetitions", int64(s.reps)), num("multiFile", 0), num("interTestDelay", 0), num("fsync", 0),
		num("fsyncperwrite", 0), num("useExistingTestFile", 0), num("uniqueDir", 0), num("singleXferAttempt", 0),
		num("readFile", 1), num("writeFile", 1), num("filePerProc", 0), num("reorderTasks", 0),
		num("reorderTasksRandom", 0), num("reorderTasksRandomSeed", 0), num("randomOffset", 0),
		num("checkWrite", 1), num("checkRead", 1), num("dataPacketType", 0), num("keepFile", 0),
		num("keepFileWithError", 0), num("warningAsErrors", 0), num(IORParamVerbose, int64(s.verbose)),
		str("data packet type", "t"), num("setTimeStampSignature/incompressibleSeed", 0), num("collective", 0),
		num("segmentCount", 1), num("transferSize", 1<<20), num("blockSize", 256<<20),
	}
	results := Table{Name: IORTableName(s.id, IORResults), Columns: IORResultsColumns()}
	ranks := Table{Name: IORTableName(s.id, IORRanks), Columns: IORRanksColumns()}
	for i, v := range s.rows {
		access, iter := IORWrite, i/2
		if i%2 == 1 {
			access = IORRead
		}
		errs := s.errors[i]
		results.Rows = append(results.Rows, IORPhase{
			Access: access, Iter: iter, BW: v[0], IOPS: v[1], Latency: v[2], Block: 256 << 20, Xfer: 1 << 20,
			Open: v[3], WrRd: v[4], Close: v[5], Total: v[6], Tasks: 2, Errors: errs,
		}.Row())
		if i%2 == 1 && s.removes != nil {
			results.Rows = append(results.Rows, IORRemoveRow(iter, s.removes[iter]))
		}
		for rank := range 2 {
			rt := v[6] * (0.9 + 0.1*float64(rank))
			wt := v[4] * (0.9 + 0.1*float64(rank))
			ranks.Rows = append(ranks.Rows, IORRank{Access: access, Iter: iter, Rank: rank,
				RuntimeWithOpenClose: rt, Runtime: wt,
				ThroughputWithOpenClose: 256 << 20 / rt, Throughput: 256 << 20 / wt}.Row())
		}
	}
	return []Table{
		header,
		{Name: IORTableName(s.id, IOROptions), Columns: IORSettingColumns(), Rows: opts},
		{Name: IORTableName(s.id, IORParameters), Columns: IORSettingColumns(), Rows: params},
		results,
		ranks,
	}
}

// at returns 2026-11-29 at h:m:s, the day of the reference runs.
func at(h, m, s int) time.Time {
	return time.Date(2026, 11, 29, h, m, s, 0, time.UTC)
}

// iorHumanRun mirrors testdata/ior/ior-human.txt.
func iorHumanRun() *Result {
	nan := math.NaN()
	return iorRunResult(at(18, 3, 15), at(18, 3, 21), "ior -a POSIX -b 256m -t 1m -w -r -W -R -i 3 -o ior_shared", iorSpec{
		start: at(18, 3, 15), file: "ior_shared", usedCap: "5.4%", reps: 3,
		rows: [][7]float64{
			{165.05, 165.06, 0.012102, 0.002204, 3.10, 0.003845, 3.10},
			{1998.83, 1999.45, 0.000990, 0.012137, 0.256070, 0.002620, 0.256150},
			{1156.16, 1156.50, 0.001729, 0.017764, 0.442714, 0.000010, 0.442846},
			{1959.88, 1960.07, 0.001019, 0.007839, 0.261215, 0.000268, 0.261240},
			{1739.64, 1740.70, 0.001125, 0.008077, 0.294135, 0.006270, 0.294313},
			{1881.90, 1882.30, 0.001057, 0.012018, 0.272007, 0.001541, 0.272066},
		},
		errors: map[int]float64{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0},
		summary: [2][9]float64{
			{1739.64, 165.05, 1020.28, 649.97, 1739.64, 165.05, 1020.28, 649.97, 1.27975},
			{1998.83, 1881.90, 1946.87, 48.62, 1998.83, 1881.90, 1946.87, 48.62, 0.26315},
		},
		stone: [2][2]float64{{nan, nan}, {nan, nan}},
	})
}

// iorJSONRun mirrors testdata/ior/ior.json.
func iorJSONRun() *Result {
	nan := math.NaN()
	return iorRunResult(at(18, 3, 50), at(18, 3, 54), "ior -a POSIX -b 256m -t 1m -w -r -W -R -i 3 -O summaryFormat=JSON -o ior_json", iorSpec{
		start: at(18, 3, 50), file: "ior_json", usedCap: "5.5%", reps: 3,
		rows: [][7]float64{
			{391.4003, 391.4295, 0.0051, 0.0029, 1.3080, 0.0000, 1.3081},
			{2903.2486, 2903.8964, 0.0007, 0.0000, 0.1763, 0.0000, 0.1764},
			{1607.1573, 1607.8926, 0.0012, 0.0001, 0.3184, 0.0000, 0.3186},
			{2896.6969, 2897.5842, 0.0007, 0.0029, 0.1767, 0.0066, 0.1768},
			{2036.1915, 2036.8540, 0.0009, 0.0001, 0.2514, 0.0120, 0.2514},
			{2462.6513, 2463.2219, 0.0008, 0.0119, 0.2079, 0.0097, 0.2079},
		},
		errors: map[int]float64{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0},
		summary: [2][9]float64{
			{2036.1915, 391.4003, 1344.9164, 696.6167, 2036.1915, 391.4003, 1344.9164, 696.6167, 0.6260},
			{2903.2486, 2462.6513, 2754.1989, 206.1727, 2903.2486, 2462.6513, 2754.1989, 206.1727, 0.1870},
		},
		stone: [2][2]float64{{nan, nan}, {nan, nan}},
	})
}

// iorCSVRun mirrors testdata/ior/ior.csv.
func iorCSVRun() *Result {
	r := iorHumanRun()
	rows := [][7]float64{
		{346.8531, 346.8830, 0.0057, 0.0066, 1.4760, 0.0079, 1.4761},
		{2654.0322, 2654.4882, 0.0008, 0.0000, 0.1929, 0.0000, 0.1929},
		{1909.7418, 1910.7749, 0.0010, 0.0055, 0.2680, 0.0063, 0.2681},
		{2731.7887, 2733.0855, 0.0007, 0.0040, 0.1873, 0.0001, 0.1874},
		{1470.8460, 1471.2894, 0.0013, 0.0041, 0.3480, 0.0039, 0.3481},
		{2612.1355, 2612.9269, 0.0007, 0.0080, 0.1959, 0.0040, 0.1960},
	}
	t := iorTable(r, IORTableName(0, IORResults))
	for i, v := range rows {
		m := t.Rows[i].Metrics
		m[0], m[1], m[2], m[5], m[6], m[7], m[8] = v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	}
	return r
}

// iorRanksRun mirrors testdata/ior/ior-ranks.csv.
func iorRanksRun() *Result {
	r := iorHumanRun()
	t := iorTable(r, IORTableName(0, IORRanks))
	t.Rows = nil
	for i, v := range [][4]float64{
		{3.9958953857e-02, 3.9797067642e-02, 1.6794449684e+09, 1.6862766022e+09},
		{6.8022966385e-02, 6.7939043045e-02, 9.8656185648e+08, 9.8778053078e+08},
		{3.0341148376e-03, 3.0200481415e-03, 2.2118102838e+10, 2.2221123921e+10},
		{7.3380470276e-03, 7.3010921478e-03, 9.1453303240e+09, 9.1916199168e+09},
		{4.2980909348e-02, 4.2854070663e-02, 1.5613644527e+09, 1.5659857503e+09},
		{4.0243864059e-02, 4.0102958679e-02, 1.6675551806e+09, 1.6734142869e+09},
		{2.9208660126e-03, 2.9079914093e-03, 2.2975673554e+10, 2.3077394172e+10},
		{3.4508705139e-03, 3.3650398254e-03, 1.9446937730e+10, 1.9942962782e+10},
	} {
		access := IORWrite
		if i/2%2 == 1 {
			access = IORRead
		}
		t.Rows = append(t.Rows, IORRank{Access: access, Iter: i / 4, Rank: i % 2,
			RuntimeWithOpenClose: v[0], Runtime: v[1], ThroughputWithOpenClose: v[2], Throughput: v[3]}.Row())
	}
	return r
}

// iorScriptRun is a script-mode run at -v of two tests: the first with
// remove rows, a -W failure in rep 1 and a -R failure in rep 2 and no
// stonewalling; the second with stonewalling and a rep whose read was
// not measured.
func iorScriptRun() *Result {
	nan := math.NaN()
	first := iorSpec{
		id: 0, start: at(9, 0, 0), file: "/scratch/ior/a", usedCap: "5.4%", reps: 3, verbose: 1,
		rows: [][7]float64{
			{165.05, 165.06, 0.012102, 0.002204, 3.10, 0.003845, 3.10},
			{1998.83, 1999.45, 0.000990, 0.012137, 0.256070, 0.002620, 0.256150},
			{1156.16, 1156.50, 0.001729, 0.017764, 0.442714, 0.000010, 0.442846},
			{1959.88, 1960.07, 0.001019, 0.007839, 0.261215, 0.000268, 0.261240},
			{4100.5, 4101.25, 0.000488, 0.008077, 0.124841, 0.006270, 3999.5},
			{1881.90, 1882.30, 0.001057, 0.012018, 0.272007, 0.001541, 0.272066},
		},
		errors:  map[int]float64{0: 0, 1: 0, 2: 32, 3: 0, 4: 0, 5: 7},
		removes: []float64{0.000564, 0.00121, 1.5},
		summary: [2][9]float64{
			{4100.5, 165.05, 1807.24, 1679.55, 4100.5, 165.05, 1807.24, 1679.55, 1334.51},
			{1998.83, 1881.90, 1946.87, 48.62, 1998.83, 1881.90, 1946.87, 48.62, 0.26315},
		},
		stone: [2][2]float64{{nan, nan}, {nan, nan}},
	}
	second := iorSpec{
		id: 1, start: at(9, 1, 5), file: "/scratch/ior/b", usedCap: "5.6%", reps: 2, verbose: 1, stonewll: 10,
		rows: [][7]float64{
			{900.25, 900.5, 0.0011, 0.0021, 0.56, 0.0004, 0.5687},
			{nan, nan, nan, nan, nan, nan, nan},
			{950.75, 951.0, 0.00105, 0.0019, 0.53, 0.0003, 0.5385},
			{2100.0, 2101.5, 0.00047, 0.0011, 0.2437, 0.0002, 0.2438},
		},
		errors: map[int]float64{0: nan, 1: nan, 2: nan, 3: nan},
		summary: [2][9]float64{
			{950.75, 900.25, 925.5, 25.25, 950.75, 900.25, 925.5, 25.25, 0.5536},
			{2100.0, 2100.0, 2100.0, 0, 2100.0, 2100.0, 2100.0, 0, 0.2438},
		},
		stone: [2][2]float64{{10.01, 912.4}, {nan, nan}},
	}
	r := iorRunResult(at(9, 0, 0), at(9, 2, 0), "hpcbench ior -v -f script.ior", first, second)
	r.Run.Version = "hpcbench dev"
	return r
}

// iorTable returns r's table named name.
func iorTable(r *Result, name string) *Table { return tableNamed(r, name) }

// iorGolden compares got with testdata/ior/name, or rewrites it with
// -update; on a mismatch it writes name.got next to it.
func iorGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", "ior", name), got)
}

// iorWriters returns the four IOR writers.
func iorWriters() []formatWriter {
	return []formatWriter{
		{"human.golden", WriteIOR},
		{"json.golden", WriteIORJSON},
		{"csv.golden", WriteIORCSV},
		{"ranks.golden", WriteIORRankCSV},
	}
}

func TestWriteIORGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *Result
	}{
		{"run", iorHumanRun()},
		{"script-v", iorScriptRun()},
	} {
		for _, w := range iorWriters() {
			var b bytes.Buffer
			if err := w.write(&b, c.r); err != nil {
				t.Fatalf("%s %s: %v", c.name, w.suffix, err)
			}
			iorGolden(t, c.name+"-"+w.suffix, b.Bytes())
		}
	}
}

// readIORRef reads a real IOR output from testdata/ior.
func readIORRef(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ior", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteIORMatchesIOR: the human output is IOR's, line by line and
// byte for byte (trailing spaces included), except the banner, which
// names hpcbench. The dates match because the result carries the
// reference run's times.
func TestWriteIORMatchesIOR(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIOR(&b, iorHumanRun()); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(b.String(), "\n")
	want := strings.Split(string(readIORRef(t, "ior-human.txt")), "\n")
	if len(got) != len(want) {
		t.Errorf("%d lines, IOR has %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if i == 0 {
			if want := "hpcbench-0.1.0 IOR: MPI Coordinated Test of Parallel I/O"; got[0] != want {
				t.Errorf("banner %q, want %q", got[0], want)
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}

// TestWriteIORCSVMatchesIOR: byte for byte IOR's summaryFormat=CSV.
func TestWriteIORCSVMatchesIOR(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIORCSV(&b, iorCSVRun()); err != nil {
		t.Fatal(err)
	}
	if want := readIORRef(t, "ior.csv"); !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got:\n%s\nwant (IOR):\n%s", b.Bytes(), want)
	}
}

// TestWriteIORRankCSVMatchesIOR: byte for byte IOR's
// saveRankPerformanceDetailsCSV file.
func TestWriteIORRankCSVMatchesIOR(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIORRankCSV(&b, iorRanksRun()); err != nil {
		t.Fatal(err)
	}
	if want := readIORRef(t, "ior-ranks.csv"); !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got:\n%s\nwant (IOR):\n%s", b.Bytes(), want)
	}
}

// jsonNode is a parsed JSON value that keeps object keys in order.
type jsonNode struct {
	keys  []string // object keys in document order
	kids  map[string]*jsonNode
	elems []*jsonNode // array elements
	leaf  any         // scalar: string, json.Number, bool or nil
	kind  byte        // '{', '[' or 0 for a scalar
}

// parseJSONNode parses data, which must be exactly one JSON document.
func parseJSONNode(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeJSONNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the document")
	}
	return n, nil
}

func decodeJSONNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &jsonNode{kind: '{', kids: map[string]*jsonNode{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if _, dup := n.kids[key]; dup {
				return nil, fmt.Errorf("duplicate key %q", key)
			}
			v, err := decodeJSONNode(dec)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.kids[key] = v
		}
		_, err := dec.Token()
		return n, err
	case json.Delim('['):
		n := &jsonNode{kind: '['}
		for dec.More() {
			v, err := decodeJSONNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		_, err := dec.Token()
		return n, err
	}
	return &jsonNode{leaf: tok}, nil
}

// compareIORJSON walks want (IOR's document) and got (ours) together and
// reports, by path: keys of want that got lacks, keys of got that want
// lacks (extra, collected), shared keys in another order, and scalar
// values that differ unless their path is in mayDiffer.
func compareIORJSON(t *testing.T, path string, want, got *jsonNode, mayDiffer map[string]bool, extra map[string]bool) {
	t.Helper()
	if want.kind != got.kind {
		t.Errorf("%s: kind %q, IOR has %q", path, got.kind, want.kind)
		return
	}
	switch want.kind {
	case '{':
		var shared []string
		for _, k := range want.keys {
			if got.kids[k] == nil {
				t.Errorf("%s: no key %q", path, k)
				continue
			}
			shared = append(shared, k)
			compareIORJSON(t, path+"."+k, want.kids[k], got.kids[k], mayDiffer, extra)
		}
		var order []string
		for _, k := range got.keys {
			if want.kids[k] == nil {
				extra[path+"."+k] = true
			} else {
				order = append(order, k)
			}
		}
		if !slices.Equal(order, shared) {
			t.Errorf("%s: key order\n got %q\nwant %q", path, order, shared)
		}
	case '[':
		if len(want.elems) != len(got.elems) {
			t.Errorf("%s: %d elements, IOR has %d", path, len(got.elems), len(want.elems))
		}
		for i := range min(len(want.elems), len(got.elems)) {
			compareIORJSON(t, path+"[]", want.elems[i], got.elems[i], mayDiffer, extra)
		}
	default:
		if mayDiffer[path] {
			return
		}
		if fmt.Sprint(want.leaf) != fmt.Sprint(got.leaf) || fmt.Sprintf("%T", want.leaf) != fmt.Sprintf("%T", got.leaf) {
			t.Errorf("%s: %v (%T), IOR has %v (%T)", path, got.leaf, got.leaf, want.leaf, want.leaf)
		}
	}
}

// TestWriteIORJSONMatchesIOR: the document parses, has every key of IOR's
// in IOR's order with IOR's values and types, and adds only the
// documented keys.
func TestWriteIORJSONMatchesIOR(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIORJSON(&b, iorJSONRun()); err != nil {
		t.Fatal(err)
	}
	var anyDoc any
	if err := json.Unmarshal(b.Bytes(), &anyDoc); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, b.Bytes())
	}
	got, err := parseJSONNode(b.Bytes())
	if err != nil {
		t.Fatalf("parsing our JSON: %v", err)
	}
	want, err := parseJSONNode(readIORRef(t, "ior.json"))
	if err != nil {
		t.Fatalf("parsing IOR's JSON: %v", err)
	}
	mayDiffer := map[string]bool{
		"$.Version":                             true, // hpcbench's version, not IOR's
		"$.tests[].Parameters.data packet type": true, // "t", IOR's off-by-one "g"
	}
	extra := map[string]bool{}
	compareIORJSON(t, "$", want, got, mayDiffer, extra)
	wantExtra := []string{"$.schema", "$.summary[].StoneWallTime", "$.summary[].StoneWallbwMeanMIB",
		"$.tests[].Results[].errors", "$.tests[].Results[].iter"}
	gotExtra := slices.Sorted(func(yield func(string) bool) {
		for k := range extra {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(gotExtra, wantExtra) {
		t.Errorf("keys beyond IOR's: %q, want %q", gotExtra, wantExtra)
	}
	if v := got.kids["tests"].elems[0].kids["Parameters"].kids["data packet type"].leaf; v != "t" {
		t.Errorf("data packet type %v, want t", v)
	}
	if v := got.kids["schema"].leaf; v != IORSchema {
		t.Errorf("schema %v, want %s", v, IORSchema)
	}
}

// TestWriteIORJSONVerbose: at -v the remove entries and "max" appear; a
// phase not measured is null; stonewalling figures are numbers when
// measured and null when not.
func TestWriteIORJSONVerbose(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIORJSON(&b, iorScriptRun()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests []struct {
			Results []map[string]any
			Max     map[string]float64 `json:"max"`
		}
		Summary []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not valid JSON: %v", err)
	}
	if len(doc.Tests) != 2 || len(doc.Summary) != 4 {
		t.Fatalf("%d tests, %d summary entries; want 2, 4", len(doc.Tests), len(doc.Summary))
	}
	res := doc.Tests[0].Results
	if len(res) != 9 || res[2]["access"] != "remove" || res[2]["iter"] != 0.0 || res[2]["totalTime"] != 0.0006 {
		t.Errorf("test 0 results: %v", res)
	}
	if res[3]["errors"] != 32.0 || res[7]["errors"] != 7.0 {
		t.Errorf("errors: %v, %v", res[3]["errors"], res[7]["errors"])
	}
	if _, ok := doc.Tests[1].Results[0]["errors"]; ok {
		t.Errorf("errors present without verification: %v", doc.Tests[1].Results[0])
	}
	if v, ok := doc.Tests[1].Results[1]["bwMiB"]; !ok || v != nil {
		t.Errorf("unmeasured bwMiB = %v, %v; want null", v, ok)
	}
	if m := doc.Tests[0].Max; m["writeMiB"] != 4100.5 || m["readMB"] != 2095.9252 {
		t.Errorf("max %v", m)
	}
	if s := doc.Summary[0]; s["StoneWallTime"] != nil || s["xsizeMiB"] != 512.0 {
		t.Errorf("summary 0: %v", s)
	}
	if s := doc.Summary[2]; s["StoneWallTime"] != 10.01 || s["StoneWallbwMeanMIB"] != 912.4 {
		t.Errorf("summary 2: %v", s)
	}
	// At verbosity 0 neither appears, as in IOR.
	b.Reset()
	if err := WriteIORJSON(&b, iorHumanRun()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"max"`) || strings.Contains(b.String(), `"remove"`) {
		t.Errorf("max or remove at verbosity 0:\n%s", b.String())
	}
}

// TestWriteIORScriptLines checks the lines that only the -v run has, in
// IOR's places.
func TestWriteIORScriptLines(t *testing.T) {
	var b bytes.Buffer
	if err := WriteIOR(&b, iorScriptRun()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"hpcbench-dev IOR: MPI Coordinated Test of Parallel I/O\n",
		// -W failure after its write row; -R failure before its read row.
		"write     1156.16    1156.50    0.001729    262144     1024.00    0.017764   0.442714   0.000010   0.442846   1   \n" +
			"WARNING: Incorrect data on write (32 errors found).\n" +
			"read      1959.88 ",
		"remove    -          -          -           -          -          -          -          -          1.50       2   \n",
		"WARNING: Incorrect data on read (7 errors found).\nread      1881.90 ",
		"write     4100       4101       0.000488    262144     1024.00    0.008077   0.124841   0.006270   4000       2   \n",
		"Max Write: 4100.50 MiB/sec (4299.69 MB/sec)\nMax Read:  1998.83 MiB/sec (2095.93 MB/sec)\nTestID              : 1\n",
		"read      -          -          -           262144     1024.00    -          -          -          -          0   \n",
		"write        4100.50     165.05    1807.24    1679.55    4100.50     165.05    1807.24    1679.55 1334.51000         NA            NA     0 ",
		"write         950.75     900.25     925.50      25.25     950.75     900.25     925.50      25.25    0.55360      10.01        912.40     1      2   2    2 ",
		"Finished            : Sun Nov 29 09:02:00 2026\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPPDouble(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.000000  |"},
		{0.9999994, "0.999999  |"},
		{0.9999996, "1.000000  |"}, // below 1, so 6 decimals, as C rounds it
		{1, "1.00      |"},
		{3599.99, "3599.99   |"},
		{3600, "3600      |"},
		{262144, "262144    |"},
		{12345678901, "12345678901|"},
		{-0.5, "   -      |"},
		{math.NaN(), "-         |"},
	} {
		var b bytes.Buffer
		ppDouble(&b, c.v, "|")
		if b.String() != c.want {
			t.Errorf("ppDouble(%v) = %q, want %q", c.v, b.String(), c.want)
		}
	}
}

func TestIORBanner(t *testing.T) {
	for _, c := range []struct{ version, want string }{
		{"", "hpcbench"},
		{"hpcbench 0.1.0 commit 0123456789ab built 2026-11-29 go1.26", "hpcbench-0.1.0"},
		{"hpcbench dev", "hpcbench-dev"},
		{"1.2.3", "hpcbench-1.2.3"},
	} {
		if got := iorBanner(c.version); got != c.want {
			t.Errorf("iorBanner(%q) = %q, want %q", c.version, got, c.want)
		}
	}
}

func TestParseIORTableName(t *testing.T) {
	for _, c := range []struct {
		in   string
		test int
		kind string
		ok   bool
	}{
		{"ior test 0 results", 0, IORResults, true},
		{IORTableName(12, IORRanks), 12, IORRanks, true},
		{IORTableName(3, IORParameters), 3, IORParameters, true},
		{"ior test 0 bogus", 0, "", false},
		{"ior test 01 header", 0, "", false},
		{"ior test -1 header", 0, "", false},
		{"ior test header", 0, "", false},
		{IORSummaryTable, 0, "", false},
	} {
		test, kind, ok := ParseIORTableName(c.in)
		if test != c.test || kind != c.kind || ok != c.ok {
			t.Errorf("ParseIORTableName(%q) = %d, %q, %v; want %d, %q, %v", c.in, test, kind, ok, c.test, c.kind, c.ok)
		}
	}
}

// TestIORResultGeneric: an IOR result is an ordinary Result too: the
// generic writers render it and the archive reads back.
func TestIORResultGeneric(t *testing.T) {
	r := iorScriptRun()
	for name, w := range map[string]func(io.Writer, *Result) error{"text": WriteText, "csv": WriteCSV} {
		if err := w(io.Discard, r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := WriteIOR(&want, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteIOR(&got, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("IOR output after a JSON round trip differs:\n%s", got.Bytes())
	}
}

func TestWriteIORRejects(t *testing.T) {
	drop := func(name string) func(*Result) {
		return func(r *Result) {
			r.Tables = slices.DeleteFunc(r.Tables, func(t Table) bool { return t.Name == name })
		}
	}
	dropColumn := func(table, col string) func(*Result) {
		return func(r *Result) {
			t := iorTable(r, table)
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
	all := []string{"human", "json", "csv", "ranks"}
	checkBadResults(t, iorWriters(), iorScriptRun, []badResult{
		{"invalid", func(r *Result) { r.Run.Benchmark = "" }, all, "run.benchmark: empty, want the name of the benchmark that ran"},
		{"nil", nil, all, "invalid result: nil"},
		{"no tables", func(r *Result) { r.Tables = nil }, all, `no table "ior test 0 `},
		{"no options", drop(IORTableName(0, IOROptions)), []string{"human", "json"}, `no table "ior test 0 options"`},
		{"no summary", drop(IORSummaryTable), []string{"human", "json"}, `no table "ior summary"`},
		{"no ranks", drop(IORTableName(1, IORRanks)), []string{"ranks"}, `no table "ior test 1 ranks"`},
		{"gap", drop(IORTableName(0, IORResults)), []string{"human", "json", "csv"}, `no table "ior test 0 results"`},
		{"no latency", dropColumn(IORTableName(1, IORResults), "latency"), []string{"human", "json", "csv"},
			`table "ior test 1 results": no metric column "latency"`},
		{"no API", dropColumn(IORSummaryTable, "API"), []string{"human", "json"}, `no label column "API"`},
		{"unit", func(r *Result) { iorTable(r, IORTableName(0, IORResults)).Columns[2].Unit = "s" }, []string{"human", "json", "csv"},
			`column "bw": unit "s" does not convert to MiB/s`},
		{"count unit", func(r *Result) { iorTable(r, IORTableName(0, IORResults)).Columns[11].Unit = "B" }, []string{"human", "json", "csv"},
			`column "tasks": unit "B", want none`},
		{"iter", func(r *Result) { iorTable(r, IORTableName(0, IORResults)).Rows[1].Labels[1] = "one" }, []string{"human", "json", "csv"},
			`row 1: column "iter": "one" is not an integer`},
		{"setting type", func(r *Result) { iorTable(r, IORTableName(0, IOROptions)).Rows[0].Labels[1] = "bool" }, []string{"human", "json"},
			`type "bool"`},
		{"int setting", func(r *Result) { iorTable(r, IORTableName(0, IORParameters)).Rows[0].Labels[2] = "x" }, []string{"human", "json"},
			`"testID": "x" is not an integer`},
		{"TestID", func(r *Result) { iorTable(r, IORTableName(1, IORHeader)).Rows[0].Labels[1] = "" }, []string{"human", "json"},
			`row "TestID": "" is not an integer`},
		{"no Path", func(r *Result) {
			iorTable(r, IORTableName(0, IORHeader)).Rows[2].Labels[0] = "path"
		}, []string{"human", "json"}, `no row "Path"`},
		{"summary int", func(r *Result) { iorTable(r, IORSummaryTable).Rows[3].Labels[11] = "256m" }, []string{"human", "json"},
			`row 3: column "blksiz": "256m" is not an integer`},
	})
}

// TestIORStartTime: an RFC 3339 StartTime is shown in IOR's layout, in its
// own zone; anything else as it is.
func TestIORStartTime(t *testing.T) {
	zone := time.FixedZone("X", 3600)
	for _, c := range []struct{ in, want string }{
		{IORHeaderTime(time.Date(2026, 1, 4, 5, 6, 7, 0, zone)), "Sun Jan  4 05:06:07 2026"},
		{"2026-01-04T05:06:07.25Z", "Sun Jan  4 05:06:07 2026"},
		{"yesterday", "yesterday"},
	} {
		test := iorTest{header: map[string]string{IORStartTime: c.in}}
		if got := test.startTime(); got != c.want {
			t.Errorf("startTime(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriteIORProgressIsPrefix: for every stage of a run (each test's
// results cut after each row, later tests absent, no summary), the
// progress output is a prefix of the next stage's and of WriteIOR's for
// the whole run, so a command can print it as the run goes.
func TestWriteIORProgressIsPrefix(t *testing.T) {
	for _, full := range []*Result{iorHumanRun(), iorScriptRun()} {
		var final bytes.Buffer
		if err := WriteIOR(&final, full); err != nil {
			t.Fatal(err)
		}
		// Stages: test k with its first n result rows, tests after k absent.
		var prev []byte
		ntests := 0
		for _, tab := range full.Tables {
			if k, _, ok := ParseIORTableName(tab.Name); ok {
				ntests = max(ntests, k+1)
			}
		}
		for k := 0; k < ntests; k++ {
			rows := len(iorTable(full, IORTableName(k, IORResults)).Rows)
			for n := 0; n <= rows; n++ {
				stage := *full
				stage.Tables = nil
				for _, tab := range full.Tables {
					test, kind, ok := ParseIORTableName(tab.Name)
					if !ok || test > k {
						continue
					}
					if test == k && kind == IORResults {
						tab.Rows = tab.Rows[:n]
					}
					stage.Tables = append(stage.Tables, tab)
				}
				var b bytes.Buffer
				if err := WriteIORProgress(&b, &stage); err != nil {
					t.Fatalf("test %d, %d rows: %v", k, n, err)
				}
				if !bytes.HasPrefix(b.Bytes(), prev) || !bytes.HasPrefix(final.Bytes(), b.Bytes()) {
					t.Fatalf("test %d, %d rows: progress output is not a prefix of what follows:\n%s", k, n, b.Bytes())
				}
				prev = b.Bytes()
			}
		}
		if len(prev) == 0 || len(prev) >= final.Len() {
			t.Errorf("progress %d bytes, final %d", len(prev), final.Len())
		}
	}
}
