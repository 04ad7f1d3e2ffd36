package report

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// noNaN returns r with every NaN metric replaced by -1, so that results can
// be compared with reflect.DeepEqual (NaN != NaN).
func noNaN(r *Result) *Result {
	for i := range r.Tables {
		for j := range r.Tables[i].Rows {
			for k, v := range r.Tables[i].Rows[j].Metrics {
				if math.IsNaN(v) {
					r.Tables[i].Rows[j].Metrics[k] = -1
				}
			}
		}
	}
	return r
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	want := sampleResult()
	var b bytes.Buffer
	if err := WriteJSON(&b, want); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	// The NaNs (a phase not run) must come back as NaN, not 0.
	for _, v := range got.Tables[1].Rows[2].Metrics[:3] {
		if !math.IsNaN(v) {
			t.Errorf("not-measured metric read back as %v, want NaN", v)
		}
	}
	if !reflect.DeepEqual(noNaN(got), noNaN(want)) {
		t.Errorf("ReadJSON(WriteJSON(r)) differs from r:\ngot  %+v\nwant %+v", got, want)
	}
}

// TestJSONEmptySchemaWritten checks that a result built without New still
// gets the schema on disk.
func TestJSONEmptySchemaWritten(t *testing.T) {
	t.Parallel()
	r := &Result{Run: Run{Benchmark: "x"}}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	if !strings.Contains(b.String(), `"schema": "hpcbench/1"`) || !strings.Contains(b.String(), `"tables": []`) {
		t.Errorf("WriteJSON output lacks schema or empty tables:\n%s", b.String())
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if got.Schema != Schema || got.Tables != nil {
		t.Errorf("read back schema %q tables %v, want %q and nil", got.Schema, got.Tables, Schema)
	}
}

func TestReadJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty input", ``, "report: reading JSON: EOF"},
		{"not JSON", `IOR-4.1.0: MPI Coordinated Test`, "report: reading JSON: invalid character"},
		{"no schema", `{"run": {"benchmark": "x"}}`, `no "schema" key`},
		{"null schema", `{"schema": null}`, `no "schema" key`},
		{"IOR's JSON", `{"Version": "4.1.0", "tests": []}`, `no "schema" key`},
		{"future schema", `{"schema": "hpcbench/2", "tables": 7}`, `report: unsupported schema "hpcbench/2", want hpcbench/1`},
		{"empty schema", `{"schema": ""}`, `report: unsupported schema "", want hpcbench/1`},
		{"schema not a string", `{"schema": 1}`, "cannot unmarshal number"},
		{"trailing data", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}} {}`, "data after the end"},
		{"array", `[]`, "cannot unmarshal array"},
		{"invalid model", `{"schema": "hpcbench/1", "run": {"benchmark": ""}}`, "no benchmark name"},
		{"row too short", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": [{"name": "t",
			"columns": [{"name": "a", "kind": "metric"}], "rows": [{"labels": [], "metrics": []}]}]}`,
			`table "t": row 0: 0 metrics for 1 metric columns`},
		{"metric not a number", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": [{"name": "t",
			"columns": [{"name": "a", "kind": "metric"}], "rows": [{"metrics": ["1"]}]}]}`, "cannot unmarshal string"},
		{"number out of range", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": [{"name": "t",
			"columns": [{"name": "a", "kind": "metric"}], "rows": [{"metrics": [1e400]}]}]}`, "cannot unmarshal number 1e400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ReadJSON(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("ReadJSON(%q) = %+v, want error containing %q", tt.in, r, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadJSON(%q) error %q, want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestReadJSONIgnoresUnknownKeys: a later release of the same schema may
// add keys; this one must still read the file.
func TestReadJSONIgnoresUnknownKeys(t *testing.T) {
	t.Parallel()
	in := `{"schema": "hpcbench/1", "run": {"benchmark": "x", "gpu": "none"}, "plots": []}`
	r, err := ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if r.Run.Benchmark != "x" {
		t.Errorf("benchmark = %q, want %q", r.Run.Benchmark, "x")
	}
}

// TestJSONNoHTMLEscape: the archive keeps <, > and & as typed, in the run
// record and inside rows.
func TestJSONNoHTMLEscape(t *testing.T) {
	t.Parallel()
	r := New("x")
	r.Run.Command = []string{"sh", "-c", "a 2>&1 <in"}
	r.Tables = []Table{{Name: "t", Columns: []Column{{Name: "l", Kind: KindLabel}}, Rows: []Row{{Labels: []string{"<&>"}}}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	for _, want := range []string{`"a 2>&1 <in"`, `["<&>"]`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, b.String())
		}
	}
}
