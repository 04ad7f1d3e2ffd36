package report

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// viewFixtures are Results of every benchmark the registry knows, with
// every table their views need.
func viewFixtures() map[string]*Result {
	return map[string]*Result{
		BenchmarkIOR:    iorRanksRun(),
		BenchmarkMdtest: mdtestAllRun(),
		BenchmarkIMB:    imbResult(),
		BenchmarkWireup: sampleResult(),
		BenchmarkFabric: fabricResult(),
	}
}

// TestViewsRegistry: each benchmark's views, in order, the default first,
// and the writer each one is.
func TestViewsRegistry(t *testing.T) {
	type view struct {
		name  string
		write func(io.Writer, *Result) error
	}
	for _, tc := range []struct {
		benchmark string
		want      []view
	}{
		{BenchmarkIOR, []view{{"human", WriteIOR}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText},
			{"ior", WriteIOR}, {"ior-json", WriteIORJSON}, {"ior-csv", WriteIORCSV}, {"ior-rank-csv", WriteIORRankCSV}}},
		{BenchmarkMdtest, []view{{"human", WriteMdtest}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText},
			{"mdtest", WriteMdtest}, {"mdtest-json", WriteMdtestJSON}, {"mdtest-csv", WriteMdtestCSV}, {"mdtest-rank-csv", WriteMdtestRankCSV}}},
		{BenchmarkIMB, []view{{"human", WriteIMB}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText}, {"imb", WriteIMB}}},
		{BenchmarkWireup, []view{{"human", WriteText}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText}}},
		{BenchmarkFabric, []view{{"human", WriteFabtests}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText}, {"fabtests", WriteFabtests}}},
		{"s3-from-a-later-build", []view{{"human", WriteText}, {"json", WriteJSON}, {"csv", WriteCSV}, {"tables", WriteText}}},
	} {
		t.Run(tc.benchmark, func(t *testing.T) {
			r := viewFixtures()[tc.benchmark]
			if r == nil {
				r = sampleResult()
			}
			got := Views(tc.benchmark)
			if len(got) != len(tc.want) {
				t.Fatalf("%d views, want %d: %v", len(got), len(tc.want), names(got))
			}
			for i, w := range tc.want {
				if got[i].Name != w.name {
					t.Errorf("view %d is %q, want %q", i, got[i].Name, w.name)
					continue
				}
				// The same writer: the same bytes, and at least some.
				var gb, wb bytes.Buffer
				gerr, werr := got[i].Write(&gb, r), w.write(&wb, r)
				if gerr != nil || werr != nil {
					t.Errorf("view %q: %v; its writer: %v", w.name, gerr, werr)
				} else if gb.Len() == 0 || !bytes.Equal(gb.Bytes(), wb.Bytes()) {
					t.Errorf("view %q renders %d bytes, not its writer's %d", w.name, gb.Len(), wb.Len())
				}
			}
		})
	}
}

func names(vs []View) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// TestViewsSurviveTheArchive: every view of every benchmark renders the
// Result read back from its archive byte for byte as it renders the
// Result the run built, so `hpcbench report` prints what the run printed.
func TestViewsSurviveTheArchive(t *testing.T) {
	for bench, r := range viewFixtures() {
		var archive bytes.Buffer
		if err := WriteJSON(&archive, r); err != nil {
			t.Fatalf("%s: %v", bench, err)
		}
		back, err := ReadJSON(&archive)
		if err != nil {
			t.Fatalf("%s: %v", bench, err)
		}
		for _, v := range Views(bench) {
			var want, got bytes.Buffer
			if err := v.Write(&want, r); err != nil {
				t.Errorf("%s %s: %v", bench, v.Name, err)
				continue
			}
			if err := Render(&got, back, v.Name); err != nil {
				t.Errorf("%s %s of the archive: %v", bench, v.Name, err)
				continue
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s %s of the archive differs from the run's:\n%s\nwant:\n%s", bench, v.Name, got.Bytes(), want.Bytes())
			}
		}
	}
}

// TestLookupView: names in any case, the aliases, and the two errors,
// each one line naming the format, the benchmark and what fits.
func TestLookupView(t *testing.T) {
	for _, tc := range []struct {
		benchmark, name string
		want            string // the view's name, or the error
		mismatch        bool
	}{
		{BenchmarkIOR, "", "human", false},
		{BenchmarkIOR, "text", "human", false},
		{BenchmarkIOR, "IOR-JSON", "ior-json", false},
		{BenchmarkMdtest, "Human", "human", false},
		{BenchmarkIMB, "imb", "imb", false},
		{BenchmarkWireup, "csv", "csv", false},
		{BenchmarkIMB, "ior", `format "ior" does not fit benchmark "imb": its formats are human, json, csv, tables, imb`, true},
		{BenchmarkWireup, "mdtest-json", `format "mdtest-json" does not fit benchmark "wireup": its formats are human, json, csv, tables`, true},
		{BenchmarkIOR, "imb", `format "imb" does not fit benchmark "ior": its formats are human, json, csv, tables, ior, ior-json, ior-csv, ior-rank-csv`, true},
		{BenchmarkIOR, "xml", `unknown format "xml": want one of human, json, csv, tables, ior, ior-json, ior-csv, ior-rank-csv, mdtest, mdtest-json, mdtest-csv, mdtest-rank-csv, imb, io500, fabtests`, false},
	} {
		v, err := LookupView(tc.benchmark, tc.name)
		var got string
		if err != nil {
			got = err.Error()
			var me *ViewMismatchError
			var ue *UnknownViewError
			if errors.As(err, &me) != tc.mismatch || errors.As(err, &ue) == tc.mismatch {
				t.Errorf("%s %q: error type %T", tc.benchmark, tc.name, err)
			}
		} else {
			got = v.Name
		}
		if got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.benchmark, tc.name, got, tc.want)
		}
	}
}

// TestRenderRefusesBeforeWriting: a view that does not fit, or a Result
// that lacks what the view needs, writes nothing.
func TestRenderRefusesBeforeWriting(t *testing.T) {
	imbMissing := imbResult()
	imbMissing.Run.Benchmark = BenchmarkIOR // IOR's views, IMB's tables
	noRanks := iorRanksRun()
	noRanks.Tables = slices.DeleteFunc(noRanks.Tables, func(t Table) bool {
		_, kind, _ := ParseIORTableName(t.Name)
		return kind == IORRanks
	})
	for _, tc := range []struct {
		name string
		r    *Result
		view string
		want string
	}{
		{"mismatch", imbResult(), "ior-csv", `does not fit benchmark "imb"`},
		{"unknown", imbResult(), "yaml", `unknown format "yaml"`},
		{"tables missing", imbMissing, "", "ior"},
		{"ranks table missing", noRanks, "ior-rank-csv", "ranks"},
	} {
		var b bytes.Buffer
		err := Render(&b, tc.r, tc.view)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %q before failing", tc.name, b.Bytes())
		}
	}
}

// TestReadJSONNotAnArchive: IOR's and mdtest's own JSON views, a sweep's
// array of them too, are refused as views, naming the schema and
// --archive.
func TestReadJSONNotAnArchive(t *testing.T) {
	var iorJSON, mdJSON, sweepJSON bytes.Buffer
	if err := WriteIORJSON(&iorJSON, iorJSONRun()); err != nil {
		t.Fatal(err)
	}
	if err := WriteMdtestJSON(&mdJSON, mdtestAllRun()); err != nil {
		t.Fatal(err)
	}
	if err := WriteMdtestSweepJSON(&sweepJSON, mdtestSweepRuns()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"ior", iorJSON.String(), `report: "schema": "hpcbench/ior/1" is IOR's own JSON view (-O summaryFormat=JSON), not an hpcbench/1 archive: --archive FILE writes one`},
		{"mdtest", mdJSON.String(), `report: "schema": "hpcbench/mdtest/1" is mdtest's own JSON view (--format json), not an hpcbench/1 archive: --archive FILE writes one`},
		{"mdtest sweep", sweepJSON.String(), `report: "schema": "hpcbench/mdtest/1" is mdtest's own JSON view (--format json), not an hpcbench/1 archive: --archive FILE writes one`},
		{"other array", `[{"schema": "x"}]`, `report: line 1, column 1: the document is a list, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
	} {
		_, err := ReadJSON(strings.NewReader(tc.doc))
		var na *NotArchiveError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || errors.As(err, &na) != strings.Contains(tc.want, "view") {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
