package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The views: the names `hpcbench report --format` takes. A view is one
// rendering of a Result; each benchmark has the views of the outputs its
// run can print, so that a saved run re-renders as the run printed it.
const (
	// ViewHuman is the benchmark's own text, what its run prints by
	// default: IOR's report (WriteIOR), mdtest's (WriteMdtest), IMB's
	// tables (WriteIMB), or WriteText for the others.
	ViewHuman = "human"
	// ViewJSON is the archive itself, WriteJSON.
	ViewJSON = "json"
	// ViewCSV is the tables as CSV, WriteCSV.
	ViewCSV = "csv"
	// ViewTables is every table of the Result as hpcbench's own text
	// (WriteText), the distribution tables and their notes included,
	// which the benchmarks' own layouts leave out.
	ViewTables = "tables"
	// ViewIOR, ViewIORJSON and ViewIORCSV are IOR's three layouts
	// (summaryFormat default, JSON, CSV): WriteIOR, WriteIORJSON,
	// WriteIORCSV. ViewIORRankCSV is -O saveRankPerformanceDetailsCSV's
	// file, WriteIORRankCSV.
	ViewIOR        = "ior"
	ViewIORJSON    = "ior-json"
	ViewIORCSV     = "ior-csv"
	ViewIORRankCSV = "ior-rank-csv"
	// ViewMdtest, ViewMdtestJSON and ViewMdtestCSV are mdtest's report and
	// its --format json and csv: WriteMdtest, WriteMdtestJSON,
	// WriteMdtestCSV. ViewMdtestRankCSV is --saveRankPerformanceDetails's
	// file, WriteMdtestRankCSV.
	ViewMdtest        = "mdtest"
	ViewMdtestJSON    = "mdtest-json"
	ViewMdtestCSV     = "mdtest-csv"
	ViewMdtestRankCSV = "mdtest-rank-csv"
	// ViewIMB is IMB-MPI1's layout, WriteIMB.
	ViewIMB = "imb"
	// ViewFabtests is fi_pingpong's layout, WriteFabtests.
	ViewFabtests = "fabtests"
)

// viewText is the name ParseFormat and the benchmarks' --format accept
// beside "human"; LookupView reads it as ViewHuman.
const viewText = "text"

// The Run.Benchmark values the view registry knows. Any other benchmark
// (one from a later build) gets the generic views: human (WriteText),
// json, csv.
const (
	BenchmarkIOR    = "ior"
	BenchmarkMdtest = "mdtest"
	BenchmarkIMB    = "imb" // hpcbench coll
	BenchmarkWireup = "wireup"
	BenchmarkIO500  = "io500"
	// BenchmarkFabric prefixes the benchmark of hpcbench fabric's tests:
	// "fabric-pingpong", "fabric-bw".
	BenchmarkFabric = "fabric-"
	// BenchmarkFabricAllpairs is hpcbench fabric allpairs: its tables are
	// hpcbench's own (WriteText), not fi_pingpong's.
	BenchmarkFabricAllpairs = BenchmarkFabric + "allpairs"
)

// View is one named rendering of a Result.
type View struct {
	// Name is what --format takes: ViewHuman, ViewJSON, ...
	Name string
	// Write renders a Result in this view. It writes nothing when the
	// Result lacks what the view needs.
	Write func(io.Writer, *Result) error
}

// Views returns the views of a Result of the named benchmark, its default
// (ViewHuman, what the run prints when no format is asked for) first. A
// benchmark the registry does not know gets the generic views.
func Views(benchmark string) []View {
	generic := []View{{ViewJSON, WriteJSON}, {ViewCSV, WriteCSV}, {ViewTables, WriteText}}
	switch benchmark {
	case BenchmarkIOR:
		return append([]View{{ViewHuman, WriteIOR}}, append(generic,
			View{ViewIOR, WriteIOR}, View{ViewIORJSON, WriteIORJSON}, View{ViewIORCSV, WriteIORCSV},
			View{ViewIORRankCSV, WriteIORRankCSV})...)
	case BenchmarkMdtest:
		return append([]View{{ViewHuman, WriteMdtest}}, append(generic,
			View{ViewMdtest, WriteMdtest}, View{ViewMdtestJSON, WriteMdtestJSON}, View{ViewMdtestCSV, WriteMdtestCSV},
			View{ViewMdtestRankCSV, WriteMdtestRankCSV})...)
	case BenchmarkIMB:
		return append([]View{{ViewHuman, WriteIMB}}, append(generic, View{ViewIMB, WriteIMB})...)
	case BenchmarkIO500:
		return append([]View{{ViewHuman, WriteIO500}}, append(generic, View{ViewIO500, WriteIO500})...)
	}
	if strings.HasPrefix(benchmark, BenchmarkFabric) && benchmark != BenchmarkFabricAllpairs {
		return append([]View{{ViewHuman, WriteFabtests}}, append(generic, View{ViewFabtests, WriteFabtests})...)
	}
	return append([]View{{ViewHuman, WriteText}}, generic...)
}

// ViewNames returns the name of every view of every benchmark, each once,
// in the registry's order: the names --format can take.
func ViewNames() []string {
	var names []string
	for _, b := range []string{BenchmarkIOR, BenchmarkMdtest, BenchmarkIMB, BenchmarkIO500, BenchmarkWireup, BenchmarkFabric} {
		for _, v := range Views(b) {
			if !slices.Contains(names, v.Name) {
				names = append(names, v.Name)
			}
		}
	}
	return names
}

// UnknownViewError is LookupView's error for a name no benchmark has.
type UnknownViewError struct {
	Name string // as asked
}

func (e *UnknownViewError) Error() string {
	return fmt.Sprintf("unknown format %q: want one of %s", e.Name, strings.Join(ViewNames(), ", "))
}

// ViewMismatchError is LookupView's error for a view that exists but does
// not fit the benchmark: IOR's layout of an IMB result.
type ViewMismatchError struct {
	Name      string   // the view asked for
	Benchmark string   // Run.Benchmark of the Result
	Fits      []string // the views that fit it, the default first
}

func (e *ViewMismatchError) Error() string {
	return fmt.Sprintf("format %q does not fit benchmark %q: its formats are %s", e.Name, e.Benchmark, strings.Join(e.Fits, ", "))
}

// LookupView returns the view name of a Result of the named benchmark:
// "" or "text" is ViewHuman, and names are read in any case. A name no
// benchmark has is an *UnknownViewError; one that exists but does not fit
// this benchmark a *ViewMismatchError.
func LookupView(benchmark, name string) (View, error) {
	key := strings.ToLower(name)
	if key == "" || key == viewText {
		key = ViewHuman
	}
	views := Views(benchmark)
	for _, v := range views {
		if v.Name == key {
			return v, nil
		}
	}
	if !slices.Contains(ViewNames(), key) {
		return View{}, &UnknownViewError{Name: name}
	}
	fits := make([]string, len(views))
	for i, v := range views {
		fits[i] = v.Name
	}
	return View{}, &ViewMismatchError{Name: name, Benchmark: benchmark, Fits: fits}
}

// Render writes r to w in the view name ("" for r's default), as the run
// that made r printed it. An unknown or unfitting name is LookupView's
// error, and nothing is written.
func Render(w io.Writer, r *Result, name string) error {
	v, err := LookupView(r.Run.Benchmark, name)
	if err != nil {
		return err
	}
	return v.Write(w, r)
}

// NotArchiveError is ReadJSON's error for a document that one of the
// views wrote rather than WriteJSON: IOR's own JSON (IORSchema, what
// -O summaryFormat=JSON prints) or mdtest's (MdtestSchema, --format json;
// an array of them for a sweep). Those are renderings of a run, not the
// run: they cannot be read back.
type NotArchiveError struct {
	Schema string // IORSchema or MdtestSchema
}

func (e *NotArchiveError) Error() string {
	what := "IOR's own JSON view (-O summaryFormat=JSON)"
	if e.Schema == MdtestSchema {
		what = "mdtest's own JSON view (--format json)"
	}
	return fmt.Sprintf("report: \"schema\": %q is %s, not an %s archive: --archive FILE writes one", e.Schema, what, Schema)
}

// isViewSchema reports whether s is the schema of a view's JSON document.
func isViewSchema(s string) bool {
	return s == IORSchema || s == MdtestSchema
}

// sweepSchema returns the "schema" of the first element of data when data
// is a JSON array of objects, as WriteMdtestSweepJSON writes for a sweep.
func sweepSchema(data []byte) (string, bool) {
	var docs []struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &docs); err != nil || len(docs) == 0 {
		return "", false
	}
	return docs[0].Schema, true
}
