package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// TestArchiveRefusedAlike: every reader of archives (report, compare,
// plot) refuses a bad file with exit 2, nothing on stdout, nothing
// created, and the same one line on stderr after its own name: the file,
// where the fault is and what was wanted, in a user's words.
func TestArchiveRefusedAlike(t *testing.T) {
	goodPath := filepath.Join(reportDir, "ior-human.json")
	good, err := os.ReadFile(goodPath)
	if err != nil {
		t.Fatal(err)
	}
	// edit returns the good archive with old replaced by new, once.
	edit := func(old, new string) string {
		t.Helper()
		if !strings.Contains(string(good), old) {
			t.Fatalf("%s has no %q", goodPath, old)
		}
		return strings.Replace(string(good), old, new, 1)
	}
	dir := t.TempDir()
	inputs := filepath.Join(dir, "in")
	outputs := filepath.Join(dir, "out")
	for _, d := range []string{inputs, outputs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	huge := filepath.Join(inputs, "huge.json")
	if err := os.WriteFile(huge, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, report.MaxArchiveSize+1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string // the file's content; path is used when empty
		path    string
		want    string // the line after "F: "
	}{
		{"empty", "", "", "empty, want an hpcbench/1 archive (JSON), as --archive FILE writes"},
		{"white space", "\n  \n", "", "only white space, want an hpcbench/1 archive (JSON), as --archive FILE writes"},
		{"text", "IOR-4.1.0: MPI Coordinated Test of Parallel I/O\n", "", "line 1, column 1: not valid JSON: invalid character 'I' looking for beginning of value"},
		{"truncated", string(good[:700]), "", "line 20, column 25: the JSON ends before the document does: is the file cut short?"},
		{"array", `[{"schema": "hpcbench/1"}]`, "", `line 1, column 1: the document is a list, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"string", `"hpcbench/1"`, "", `line 1, column 1: the document is a string, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"number", "1e3\n", "", `line 1, column 1: the document is a number, want an object {"schema": "hpcbench/1", ...}: not an hpcbench archive`},
		{"no schema", `{"run": {}}`, "", `no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"schema a number", edit(`"schema": "hpcbench/1"`, `"schema": 1`), "", `line 2, column 13: schema: a number, want "hpcbench/1"`},
		{"other schema", edit(`"schema": "hpcbench/1"`, `"schema": "hpcbench/0"`), "", `unsupported schema "hpcbench/0", want hpcbench/1`},
		{"run a string", edit(`"run": {`, `"run": "ior", "x": {`), "", "line 3, column 10: run: a string, want an object"},
		{"ranks a string", edit(`"ranks": 2,`, `"ranks": "two",`), "", "line 8, column 14: run.ranks: a string, want a whole number"},
		{"hosts negative", edit(`"hosts": 1,`, `"hosts": -1,`), "", "line 9, column 14: run.hosts: -1, want 0 or more"},
		{"start not a time", edit(`"start": "2026-12-02T00:02:47.999670801Z"`, `"start": "yesterday"`), "",
			`line 10, column 14: run.start: "yesterday" is not a time, want one in RFC 3339 such as "2026-01-02T15:04:05Z"`},
		{"params an object", edit(`"params": [`, `"params": {}, "x": [`), "", "line 23, column 13: params: an object, want a list of objects"},
		{"tables null", edit(`"tables": [`, `"tables": null, "x": [`), "", "line 197, column 13: tables: missing or null, want a list of tables ([] for none)"},
		{"tables missing", edit(`"tables": [`, `"x": [`), "", "line 1, column 1: tables: missing or null, want a list of tables ([] for none)"},
		{"columns a string", edit(`"columns": [`, `"columns": "name", "x": [`), "", "line 200, column 18: tables[0].columns: a string, want a list of objects"},
		{"kind unknown", edit(`"kind": "label"`, `"kind": "tag"`), "", `line 203, column 19: tables[0].columns[0].kind: column "name": unknown kind "tag", want "label" or "metric"`},
		{"rows a number", edit(`"rows": [`, `"rows": 7, "x": [`), "", "line 210, column 15: tables[0].rows: a number, want a list of objects"},
		{"metrics strings", edit(`"metrics": [436.17970049916806,`, `"metrics": ["436",`), "", "line 601, column 23: tables[3].rows[0].metrics[0]: a string, want a number or null"},
		{"samples a list", edit(`"samples": {`, `"samples": [1], "x": {`), "", "line 844, column 22: tables[5].rows[0].samples: a list, want an object whose values are lists"},
		{"data after", string(good) + "{}\n", "", "line 861, column 1: more data after the end of the archive's JSON document"},
		{"huge", "", huge, "larger than 1 GiB, the most an archive can be"},
		{"directory", "", outputs, "is a directory"},
		{"missing", "", filepath.Join(inputs, "gone.json"), "no such file or directory"},
		{"under a file", "", filepath.Join(goodPath, "x.json"), "not a directory"},
		{"unreadable", "", "/proc/self/mem", "reading the archive: input/output error"},
	}
	// compare reads a directory as the archives in it.
	compareWants := map[string]string{"directory": "no *.json archives in this directory"}
	for i, tc := range tests {
		path := tc.path
		if path == "" {
			path = filepath.Join(inputs, tc.name+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, argv := range [][]string{
			{"report", path},
			{"compare", goodPath, path},
			{"plot", "-o", filepath.Join(outputs, "chart.png"), path},
		} {
			t.Run(tc.name+"/"+argv[0], func(t *testing.T) {
				o := mainOutcome(argv...)
				want := tc.want
				if w, ok := compareWants[tc.name]; ok && argv[0] == "compare" {
					want = w
				}
				want = "hpcbench: " + argv[0] + ": " + path + ": " + want + "\n"
				if o.code != 2 || o.stdout != "" || o.stderr != want {
					t.Errorf("%d: exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", i, o.code, o.stdout, o.stderr, want)
				}
				if entries, err := os.ReadDir(outputs); err != nil || len(entries) != 0 {
					t.Errorf("the refusal left %v (%v)", entries, err)
				}
			})
		}
	}
}
