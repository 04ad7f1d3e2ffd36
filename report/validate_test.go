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
		{"no benchmark", func(r *Result) { r.Run.Benchmark = "" }, "run.benchmark: empty, want the name of the benchmark that ran"},
		{"negative ranks", func(r *Result) { r.Run.Ranks = -1 }, "run.ranks: -1, want 0 or more"},
		{"unnamed param", func(r *Result) { r.Params[1].Name = "" }, "params[1].name: empty, want the option's name"},
		{"unnamed table", func(r *Result) { r.Tables[1].Name = "" }, "tables[1].name: empty, want the table's name"},
		{"duplicate table", func(r *Result) { r.Tables[1].Name = "phases" }, `tables[1].name: "phases" again (tables[0] has it), want each table's own name`},
		{"no columns", func(r *Result) { r.Tables[0] = Table{Name: "t"} }, `tables[0].columns: none, want at least one column (table "t")`},
		{"unnamed column", func(r *Result) { r.Tables[0].Columns[2].Name = "" }, "tables[0].columns[2].name: empty, want the column's name"},
		{"duplicate column", func(r *Result) { r.Tables[0].Columns[2].Name = "min" }, `tables[0].columns[2].name: "min" again (column 1 has it), want each column's own name (table "phases")`},
		{"bad kind", func(r *Result) { r.Tables[0].Columns[0].Kind = "key" }, `tables[0].columns[0].kind: column "phase": unknown kind "key"`},
		{"label with unit", func(r *Result) { r.Tables[0].Columns[0].Unit = "s" }, "those are for metrics"},
		{"bad better", func(r *Result) { r.Tables[0].Columns[1].Better = "smaller" }, `unknown better "smaller"`},
		{"time as size", func(r *Result) { r.Tables[0].Columns[1].Display = "KiB" }, `cannot display unit "s" as "KiB"`},
		{"rate as size", func(r *Result) { r.Tables[1].Columns[1].Display = "MiB" }, `cannot display unit "MiB/s" as "MiB"`},
		{"ops as bytes", func(r *Result) { r.Tables[1].Columns[2].Display = "B/s" }, `cannot display unit "ops/s" as "B/s"`},
		{"unknown display", func(r *Result) { r.Tables[0].Columns[1].Display = "fortnights" }, "cannot display"},
		{"missing label", func(r *Result) { r.Tables[1].Rows[2].Labels = []string{"write"} }, `tables[1].rows[2].labels: 1 value for 2 label columns (table "results")`},
		{"extra metric", func(r *Result) { r.Tables[0].Rows[0].Metrics = append(r.Tables[0].Rows[0].Metrics, 1) }, `tables[0].rows[0].metrics: 4 values for 3 metric columns (table "phases")`},
		{"infinite metric", func(r *Result) { r.Tables[0].Rows[3].Metrics[1] = math.Inf(1) }, `tables[0].rows[3].metrics[1]: column "mean": infinite value`},
		{"orphan samples", func(r *Result) {
			r.Tables[0].Rows[0].Samples = map[string][]float64{"min": {1}}
		}, `tables[0].rows[0].samples.min: belong to no metric column`},
		{"infinite sample", func(r *Result) {
			r.Tables[0].Rows[0].Samples["rank"][2] = math.Inf(-1)
		}, `tables[0].rows[0].samples.rank: infinite value`},
		{"metric table with label-only row", func(r *Result) {
			r.Tables = []Table{{Name: "t", Columns: []Column{metric("a")}, Rows: []Row{{}}}}
		}, `tables[0].rows[0].metrics: 0 values for 1 metric columns (table "t")`},
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
