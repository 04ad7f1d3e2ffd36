package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile is the archive's JSON Schema, relative to the module root.
const schemaFile = "docs/results.schema.json"

// moduleRoot returns the directory holding go.mod, above the package's.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// archiveSchema compiles docs/results.schema.json, with formats (the run's
// date-times) asserted rather than only annotated.
func archiveSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot(t), schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	loc := filepath.Join(moduleRoot(t), schemaFile)
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return s
}

// validateArchive checks one archive against the schema.
func validateArchive(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// isArchive reports whether data is a JSON object whose top-level
// "schema" is Schema; anything else (IOR's and mdtest's own JSON, text
// goldens, other schemas) is not an archive of this version.
func isArchive(data []byte) bool {
	var probe struct {
		Schema string `json:"schema"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Schema == Schema
}

// TestArchivesInRepositoryMatchSchema validates every archive under any
// testdata directory of the module (*.json and *.golden files whose
// "schema" is hpcbench/1), so golden archives any package adds are checked
// without listing them here, and checks ReadJSON takes each one too. A
// deliberately broken archive (a fixture for a reader's error path) is
// named invalid*: it must fail the schema or ReadJSON, so it is checked
// too, the other way round.
func TestArchivesInRepositoryMatchSchema(t *testing.T) {
	t.Parallel()
	s := archiveSchema(t)
	root := moduleRoot(t)
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		ext := filepath.Ext(path)
		if !d.Type().IsRegular() || ext != ".json" && ext != ".golden" ||
			!strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !isArchive(data) {
			return nil
		}
		found++
		rel, _ := filepath.Rel(root, path)
		schemaErr := validateArchive(s, data)
		_, readErr := ReadJSON(bytes.NewReader(data))
		switch {
		case strings.HasPrefix(d.Name(), "invalid"):
			if schemaErr == nil && readErr == nil {
				t.Errorf("%s is named invalid but matches %s and ReadJSON reads it", rel, schemaFile)
			}
		case schemaErr != nil:
			t.Errorf("%s does not match %s: %v", rel, schemaFile, schemaErr)
		case readErr != nil:
			t.Errorf("%s: ReadJSON: %v", rel, readErr)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no hpcbench/1 archive under any testdata directory; report/testdata/TestWriteJSON.golden should be one")
	}
	t.Logf("%d archives validated", found)
}

// fence is one fenced code block of a Markdown page: its info string
// ("json" or empty) and its text, ending in a newline.
type fence struct{ info, body string }

// fences returns the fenced code blocks of a Markdown page, in order.
func fences(t *testing.T, page string) []fence {
	t.Helper()
	var out []fence
	var cur *fence
	for line := range strings.Lines(page) {
		trimmed := strings.TrimSuffix(line, "\n")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fence{info: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line
		}
	}
	if cur != nil {
		t.Fatal("a fenced block is not closed")
	}
	return out
}

// TestDocExamplesMatchSchema: every archive in a ```json block of
// docs/results.md validates, reads with ReadJSON, and is exactly what
// WriteJSON writes for what it reads; the two plain blocks after it are
// exactly its text and CSV views. So the page shows the real format.
func TestDocExamplesMatchSchema(t *testing.T) {
	t.Parallel()
	s := archiveSchema(t)
	page, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fences(t, string(page))
	found := 0
	for i, f := range blocks {
		if f.info != "json" || !isArchive([]byte(f.body)) {
			continue
		}
		found++
		if err := validateArchive(s, []byte(f.body)); err != nil {
			t.Errorf("docs/results.md example %d does not match %s: %v", found, schemaFile, err)
		}
		r, err := ReadJSON(strings.NewReader(f.body))
		if err != nil {
			t.Errorf("docs/results.md example %d: ReadJSON: %v", found, err)
			continue
		}
		views := []struct {
			name  string
			write func(io.Writer, *Result) error
		}{{"JSON", WriteJSON}, {"text", WriteText}, {"CSV", WriteCSV}}
		for j, v := range views {
			if i+j >= len(blocks) || j > 0 && blocks[i+j].info != "" {
				t.Errorf("docs/results.md example %d: no %s view after it", found, v.name)
				continue
			}
			var b bytes.Buffer
			if err := v.write(&b, r); err != nil {
				t.Fatalf("docs/results.md example %d: %s: %v", found, v.name, err)
			}
			if b.String() != blocks[i+j].body {
				t.Errorf("docs/results.md example %d: its %s view is not what the writer writes:\n%s", found, v.name, b.String())
			}
		}
	}
	if found == 0 {
		t.Fatal("docs/results.md has no hpcbench/1 example in a ```json block")
	}
}

// archiveResults returns one Result of every kind the report tests build:
// the generic sample, IMB, IOR's runs, mdtest's runs and sweep, a result
// with no tables and one with a table that has no rows.
func archiveResults() map[string]*Result {
	rs := map[string]*Result{
		"sample":           sampleResult(),
		"imb":              imbResult(),
		"ior human":        iorHumanRun(),
		"ior json":         iorJSONRun(),
		"ior csv":          iorCSVRun(),
		"ior ranks":        iorRanksRun(),
		"ior script":       iorScriptRun(),
		"mdtest all-procs": mdtestAllProcsRun(),
		"minimal":          New("minimal"),
	}
	for _, c := range mdtestRuns() {
		rs["mdtest "+c.name] = c.r
	}
	for i, r := range mdtestSweepRuns() {
		rs["mdtest sweep "+string(rune('0'+i))] = r
	}
	empty := New("empty-table")
	empty.Run.Start = time.Date(2026, 3, 1, 12, 0, 0, 500, time.FixedZone("", 3600))
	empty.Tables = []Table{{Name: "nothing", Columns: []Column{{Name: "x", Kind: KindMetric, Unit: "s", Better: BetterLower}}}}
	rs["empty table"] = empty
	return rs
}

// TestWrittenArchivesMatchSchema writes every kind of Result with
// WriteJSON and validates what it wrote.
func TestWrittenArchivesMatchSchema(t *testing.T) {
	t.Parallel()
	s := archiveSchema(t)
	results := archiveResults()
	for name, r := range results {
		var b bytes.Buffer
		if err := WriteJSON(&b, r); err != nil {
			t.Fatalf("%s: WriteJSON: %v", name, err)
		}
		if err := validateArchive(s, b.Bytes()); err != nil {
			t.Errorf("%s: WriteJSON's archive does not match %s: %v\n%s", name, schemaFile, err, b.String())
		}
	}
	t.Logf("%d archives written and validated", len(results))
}

// TestSchemaRejectsBrokenArchives: each case breaks one thing in a valid
// archive, and the schema must refuse it at that place.
func TestSchemaRejectsBrokenArchives(t *testing.T) {
	t.Parallel()
	s := archiveSchema(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	if err := validateArchive(s, []byte(good)); err != nil {
		t.Fatalf("the unbroken archive fails: %v", err)
	}
	// Each edit replaces the first occurrence of old with new; the error
	// must name the instance location at and say msg.
	tests := []struct {
		name, old, new string
		at, msg        string
	}{
		{"missing schema", `"schema": "hpcbench/1",`, ``, "", "missing property 'schema'"},
		{"other schema", `"schema": "hpcbench/1"`, `"schema": "hpcbench/ior/1"`, "/schema", "value must be 'hpcbench/1'"},
		{"wrong kind", `"kind": "label"`, `"kind": "dimension"`, "/tables/0/columns/0/kind", "value must be one of 'label', 'metric'"},
		{"string metric", `"metrics": [0.000812,`, `"metrics": ["0.000812",`, "/tables/0/rows/0/metrics/0", "got string, want null or number"},
		{"string sample", `"rank": [0.000812,`, `"rank": ["0.000812",`, "/tables/0/rows/0/samples/rank/0", "got string, want null or number"},
		{"unknown better", `"better": "lower"`, `"better": "faster"`, "/tables/0/columns/1/better", "value must be one of 'lower', 'higher'"},
		{"unit on a label", `"kind": "label"`, `"kind": "label", "unit": "s"`, "/tables/0/columns/0/unit", "false schema"},
		{"no benchmark", `"benchmark": "wireup",`, ``, "/run", "missing property 'benchmark'"},
		{"negative ranks", `"ranks": 4`, `"ranks": -4`, "/run/ranks", "minimum: got -4, want 0"},
		{"fractional hosts", `"hosts": 2`, `"hosts": 2.5`, "/run/hosts", "got number, want integer"},
		{"bad start", `"start": "2026-03-01T12:00:00Z"`, `"start": "1 March 2026"`, "/run/start", "'1 March 2026' is not valid date-time"},
		{"unknown field", `"run": {`, `"runs": 1, "run": {`, "", "additional properties 'runs' not allowed"},
	}
	for _, tt := range tests {
		if !strings.Contains(good, tt.old) {
			t.Fatalf("%s: the archive has no %q to break", tt.name, tt.old)
		}
		bad := strings.Replace(good, tt.old, tt.new, 1)
		err := validateArchive(s, []byte(bad))
		var ve *jsonschema.ValidationError
		want := "at '" + tt.at + "': " + tt.msg
		switch {
		case err == nil:
			t.Errorf("%s: the schema accepts it", tt.name)
		case !errors.As(err, &ve):
			t.Errorf("%s: %v, want a validation error", tt.name, err)
		case !strings.Contains(err.Error(), want):
			t.Errorf("%s: error does not say %q:\n%v", tt.name, want, err)
		}
	}
}
