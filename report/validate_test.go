package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	metric := func(name string) Column { return Column{Name: name, Kind: KindMetric, Unit: "s"} }
	tests := []struct {
		name   string
		modify func(r *Result)
		want   string // "" means valid
	}{
		// HAPPY PATH
		{"sample", func(r *Result) {}, ""},
		{"empty schema is current", func(r *Result) { r.Schema = "" }, ""},
		{"no tables", func(r *Result) { r.Tables = nil }, ""},
		{"display same unit", func(r *Result) { r.Tables[0].Columns[1].Display = "s" }, ""},
		{"bandwidth display", func(r *Result) { r.Tables[1].Columns[1].Display = "GB/s" }, ""},
		{"size display", func(r *Result) { r.Tables[1].Columns[4].Display = "TiB" }, ""},
		{"unknown unit shown as itself", func(r *Result) { r.Tables[1].Columns[2].Unit = "files/s" }, ""},
		{"samples under own name", func(r *Result) {
			r.Tables[0].Rows[0].Samples = map[string][]float64{"rank": {math.NaN()}}
		}, ""},

		// SAD PATH
		{"nil result", nil, "report: invalid result: nil"},
		{"other schema", func(r *Result) { r.Schema = "hpcbench/0" }, `unsupported schema "hpcbench/0"`},
		{"no benchmark", func(r *Result) { r.Run.Benchmark = "" }, "no benchmark name"},
		{"negative ranks", func(r *Result) { r.Run.Ranks = -1 }, "negative count"},
		{"unnamed param", func(r *Result) { r.Params[1].Name = "" }, "param 1 has no name"},
		{"unnamed table", func(r *Result) { r.Tables[1].Name = "" }, "table 1 has no name"},
		{"duplicate table", func(r *Result) { r.Tables[1].Name = "phases" }, `two tables named "phases"`},
		{"no columns", func(r *Result) { r.Tables[0] = Table{Name: "t"} }, `table "t": no columns`},
		{"unnamed column", func(r *Result) { r.Tables[0].Columns[2].Name = "" }, "column 2: no name"},
		{"duplicate column", func(r *Result) { r.Tables[0].Columns[2].Name = "min" }, `two columns named "min"`},
		{"bad kind", func(r *Result) { r.Tables[0].Columns[0].Kind = "key" }, `unknown kind "key"`},
		{"label with unit", func(r *Result) { r.Tables[0].Columns[0].Unit = "s" }, "those are for metrics"},
		{"bad better", func(r *Result) { r.Tables[0].Columns[1].Better = "smaller" }, `unknown better "smaller"`},
		{"time as size", func(r *Result) { r.Tables[0].Columns[1].Display = "KiB" }, `cannot display unit "s" as "KiB"`},
		{"rate as size", func(r *Result) { r.Tables[1].Columns[1].Display = "MiB" }, `cannot display unit "MiB/s" as "MiB"`},
		{"ops as bytes", func(r *Result) { r.Tables[1].Columns[2].Display = "B/s" }, `cannot display unit "ops/s" as "B/s"`},
		{"unknown display", func(r *Result) { r.Tables[0].Columns[1].Display = "fortnights" }, "cannot display"},
		{"missing label", func(r *Result) { r.Tables[1].Rows[2].Labels = []string{"write"} }, "row 2: 1 labels for 2 label columns"},
		{"extra metric", func(r *Result) { r.Tables[0].Rows[0].Metrics = append(r.Tables[0].Rows[0].Metrics, 1) }, "row 0: 4 metrics for 3 metric columns"},
		{"infinite metric", func(r *Result) { r.Tables[0].Rows[3].Metrics[1] = math.Inf(1) }, `row 3: column "mean": infinite value`},
		{"orphan samples", func(r *Result) {
			r.Tables[0].Rows[0].Samples = map[string][]float64{"min": {1}}
		}, `samples "min" belong to no metric column`},
		{"infinite sample", func(r *Result) {
			r.Tables[0].Rows[0].Samples["rank"][2] = math.Inf(-1)
		}, `samples "rank": infinite value`},
		{"metric table with label-only row", func(r *Result) {
			r.Tables = []Table{{Name: "t", Columns: []Column{metric("a")}, Rows: []Row{{}}}}
		}, "row 0: 0 metrics for 1 metric columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r *Result
			if tt.modify != nil {
				r = sampleResult()
				tt.modify(r)
			}
			err := r.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.want)
			}
			// Every writer refuses the result with the same error and
			// writes nothing.
			for _, f := range []Format{FormatText, FormatJSON, FormatCSV} {
				var b bytes.Buffer
				werr := Write(&b, r, f)
				if werr == nil || werr.Error() != err.Error() {
					t.Errorf("Write(%v) = %v, want %v", f, werr, err)
				}
				if b.Len() != 0 {
					t.Errorf("Write(%v) wrote %d bytes for an invalid result", f, b.Len())
				}
			}
		})
	}
}
