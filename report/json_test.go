package report

import (
	"bytes"
	"math"
	"reflect"
	"regexp"
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

// TestReadJSONErrors: every fault of an archive is one line in a user's
// words, with where it is (line and column, JSON path) and what was
// wanted there; never Go's type names.
func TestReadJSONErrors(t *testing.T) {
	t.Parallel()
	// doc is a valid archive with its parts replaceable: each %s is, in
	// order, the run, the params, a column, a row.
	doc := func(run, params, column, row string) string {
		return `{"schema": "hpcbench/1", "run": ` + run + `, "params": ` + params + `,
"tables": [{"name": "t", "columns": [{"name": "l", "kind": "label"}, ` + column + `],
  "rows": [` + row + `]}]}`
	}
	const (
		run    = `{"benchmark": "x", "ranks": 1}`
		params = `[{"name": "p", "value": "1"}]`
		column = `{"name": "m", "kind": "metric", "unit": "s"}`
		row    = `{"labels": ["a"], "metrics": [1], "samples": {"m": [1, null]}}`
	)
	if _, err := ReadJSON(strings.NewReader(doc(run, params, column, row))); err != nil {
		t.Fatalf("the valid archive: %v", err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"empty input", ``, "report: empty, want an hpcbench/1 archive (JSON), as --archive FILE writes"},
		{"white space", " \n\t ", "report: only white space, want an hpcbench/1 archive (JSON), as --archive FILE writes"},
		{"not JSON", `IOR-4.1.0: MPI Coordinated Test`, "report: line 1, column 1: not valid JSON: invalid character 'I' looking for beginning of value"},
		{"bad JSON inside", "{\"schema\": \"hpcbench/1\",\n \"run\": {,}}", "report: line 2, column 10: not valid JSON: invalid character ',' looking for beginning of object key string"},
		{"truncated", doc(run, params, column, row)[:60], "report: line 1, column 61: the JSON ends before the document does: is the file cut short?"},
		{"array", `[]`, `report: line 1, column 1: the document is a list, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"array of objects", `[{"schema": "x"}]`, `report: line 1, column 1: the document is a list, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"string", ` "hpcbench/1"`, `report: line 1, column 2: the document is a string, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"number", `42`, `report: line 1, column 1: the document is a number, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"null", `null`, `report: no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"no schema", `{"run": {"benchmark": "x"}}`, `report: no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"null schema", `{"schema": null}`, `report: no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"IOR's JSON", `{"Version": "4.1.0", "tests": []}`, `report: no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"future schema", `{"schema": "hpcbench/2", "tables": 7}`, `report: unsupported schema "hpcbench/2", want hpcbench/1`},
		{"empty schema", `{"schema": ""}`, `report: unsupported schema "", want hpcbench/1`},
		{"schema not a string", `{"schema": 1}`, `report: line 1, column 12: schema: a number, want "hpcbench/1"`},
		{"trailing data", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": []}` + "\n {}",
			"report: line 2, column 2: more data after the end of the archive's JSON document"},
		{"trailing garbage", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": []}x`,
			"report: line 1, column 66: more data after the end of the archive's JSON document"},
		{"no tables", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}}`,
			"report: line 1, column 1: tables: missing or null, want a list of tables ([] for none)"},
		{"null tables", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": null}`,
			"report: line 1, column 63: tables: missing or null, want a list of tables ([] for none)"},
		{"tables an object", `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": {}}`,
			"report: line 1, column 63: tables: an object, want a list of objects"},
		{"run a list", doc(`[]`, params, column, row), "report: line 1, column 33: run: a list, want an object"},
		{"benchmark a number", doc(`{"benchmark": 7}`, params, column, row), "report: line 1, column 47: run.benchmark: a number, want a string"},
		{"no benchmark", doc(`{"ranks": 1}`, params, column, row), "report: line 1, column 33: run.benchmark: empty, want the name of the benchmark that ran"},
		{"ranks a fraction", doc(`{"benchmark": "x", "ranks": 1.5}`, params, column, row), "report: line 1, column 61: run.ranks: 1.5, want a whole number"},
		{"ranks too large", doc(`{"benchmark": "x", "ranks": 1e30}`, params, column, row), "report: line 1, column 61: run.ranks: 1e30 is out of range, want a whole number"},
		{"negative hosts", doc(`{"benchmark": "x", "hosts": -2}`, params, column, row), "report: line 1, column 61: run.hosts: -2, want 0 or more"},
		{"command a string", doc(`{"benchmark": "x", "command": "ior -w"}`, params, column, row), "report: line 1, column 63: run.command: a string, want a list of strings"},
		{"env values", doc(`{"benchmark": "x", "env": {"a": 1}}`, params, column, row), "report: line 1, column 65: run.env.a: a number, want a string"},
		{"start a number", doc(`{"benchmark": "x", "start": 5}`, params, column, row), "report: line 1, column 61: run.start: a number, want a string"},
		{"start not a time", doc(`{"benchmark": "x", "start": "noon"}`, params, column, row),
			`report: line 1, column 61: run.start: "noon" is not a time, want one in RFC 3339 such as "2026-01-02T15:04:05Z"`},
		{"params an object", doc(run, `{}`, column, row), "report: line 1, column 75: params: an object, want a list of objects"},
		{"param value a number", doc(run, `[{"name": "p", "value": 1}]`, column, row), "report: line 1, column 99: params[0].value: a number, want a string"},
		{"param unnamed", doc(run, `[{"value": "1"}]`, column, row), "report: line 1, column 76: params[0].name: empty, want the option's name"},
		{"columns a string", strings.Replace(doc(run, params, column, row), `"columns": [`, `"columns": "l", "x": [`, 1),
			"report: line 2, column 37: tables[0].columns: a string, want a list of objects"},
		{"column kind a list", doc(run, params, `{"name": "m", "kind": []}`, row), "report: line 2, column 92: tables[0].columns[1].kind: a list, want a string"},
		{"column kind unknown", doc(run, params, `{"name": "m", "kind": "key"}`, row),
			`report: line 2, column 92: tables[0].columns[1].kind: column "m": unknown kind "key", want "label" or "metric"`},
		{"rows an object", strings.Replace(doc(run, params, column, row), `"rows": [`, `"rows": {"r": 1}, "x": [`, 1),
			"report: line 3, column 11: tables[0].rows: an object, want a list of objects"},
		{"labels a string", doc(run, params, column, `{"labels": "a", "metrics": [1]}`), "report: line 3, column 23: tables[0].rows[0].labels: a string, want a list of strings"},
		{"label a number", doc(run, params, column, `{"labels": [1], "metrics": [1]}`), "report: line 3, column 24: tables[0].rows[0].labels[0]: a number, want a string"},
		{"metrics an object", doc(run, params, column, `{"labels": ["a"], "metrics": {}}`), "report: line 3, column 41: tables[0].rows[0].metrics: an object, want a list of numbers or nulls"},
		{"metric a string", doc(run, params, column, `{"labels": ["a"], "metrics": ["1"]}`), "report: line 3, column 42: tables[0].rows[0].metrics[0]: a string, want a number or null"},
		{"metric true", doc(run, params, column, `{"labels": ["a"], "metrics": [true]}`), "report: line 3, column 42: tables[0].rows[0].metrics[0]: true or false, want a number or null"},
		{"metric out of range", doc(run, params, column, `{"labels": ["a"], "metrics": [1e400]}`), "report: line 3, column 42: tables[0].rows[0].metrics[0]: 1e400 is out of range, want a number or null"},
		{"too few metrics", doc(run, params, column, `{"labels": ["a"], "metrics": []}`), `report: line 3, column 41: tables[0].rows[0].metrics: 0 values for 1 metric columns (table "t")`},
		{"samples a list", doc(run, params, column, `{"labels": ["a"], "metrics": [1], "samples": [1]}`),
			"report: line 3, column 57: tables[0].rows[0].samples: a list, want an object whose values are lists"},
		{"sample set a number", doc(run, params, column, `{"labels": ["a"], "metrics": [1], "samples": {"m": 1}}`),
			"report: line 3, column 63: tables[0].rows[0].samples.m: a number, want a list of numbers or nulls"},
		{"sample a string", doc(run, params, column, `{"labels": ["a"], "metrics": [1], "samples": {"m": [1, "2"]}}`),
			"report: line 3, column 67: tables[0].rows[0].samples.m[1]: a string, want a number or null"},
		{"samples of no column", doc(run, params, column, `{"labels": ["a"], "metrics": [1], "samples": {"a b": [1]}}`),
			`report: line 3, column 65: tables[0].rows[0].samples["a b"]: belong to no metric column, want a metric column's name or source (table "t")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ReadJSON(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("ReadJSON(%q) = %+v, want error %q", tt.in, r, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("ReadJSON(%q) error\n%s\nwant\n%s", tt.in, err, tt.want)
			}
			if leak := goWords(err.Error()); leak != "" {
				t.Errorf("error %q says %q, Go's words", err, leak)
			}
		})
	}
}

// TestReadJSONTooLarge: a document larger than the limit is refused
// before it is read whole, whether the reader knows its size or not.
func TestReadJSONTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(" ", 3<<10) + `{"schema": "hpcbench/1", "run": {"benchmark": "x"}, "tables": []}`
	want := "report: larger than 2 KiB, the most an archive can be"
	if _, err := readJSON(strings.NewReader(big), 2<<10); err == nil || err.Error() != want {
		t.Errorf("readJSON of %d bytes = %v, want %q", len(big), err, want)
	}
	if _, err := readJSON(strings.NewReader(big), 4<<10); err != nil {
		t.Errorf("readJSON of %d bytes under a 4 KiB limit: %v", len(big), err)
	}
}

// TestReadJSONIgnoresUnknownKeys: a later release of the same schema may
// add keys; this one must still read the file.
func TestReadJSONIgnoresUnknownKeys(t *testing.T) {
	t.Parallel()
	in := `{"schema": "hpcbench/1", "run": {"benchmark": "x", "gpu": "none"}, "plots": [], "tables": []}`
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

// goWords returns the first of Go's own words in msg, outside the quoted
// strings that name what the input holds, or "".
func goWords(msg string) string {
	unquoted := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).ReplaceAllString(msg, `""`)
	for _, w := range []string{"Go value", "Go struct", "struct", "unmarshal", "json:", "float64", "int64",
		"[]string", "[]report", "report.", "main.", "map[", "*float", "time.Time", "UnmarshalJSON", "EOF"} {
		if strings.Contains(unquoted, w) {
			return w
		}
	}
	return ""
}
