package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// reportDir holds the golden pairs of TestReportGolden: NAME.json, the
// archive of a run, and NAME.stdout, what that run printed on stdout.
const reportDir = "testdata/report"

// reportCase is one golden pair: a run, what it printed (on stdout, or
// in the file it was asked to write) and the view that is.
type reportCase struct {
	name   string
	format string // hpcbench report's --format; "" for the default
	cmd    string // ior, mdtest, coll, wireup
	// args is the run's command line; {dir} stands for a fresh directory.
	args string
	// file, if set, is the file under {dir} the run writes what the view
	// prints (a per-rank CSV), instead of stdout.
	file string
}

// reportCases are, for every benchmark, a run printing each of its views.
// Their pairs come from real runs of the binary under hpcbench launch -n
// 2, with --archive writing the archive beside what the run printed.
func reportCases() []reportCase {
	return []reportCase{
		{"ior-human", "", "ior", "-a POSIX -w -r -i 2 -b 64k -t 16k -s 2 -o {dir}/ior.dat", ""},
		{"ior-human-verbose", "ior", "ior", "-a POSIX -w -r -i 2 -b 32k -t 8k -F -C -e -v -o {dir}/ior.dat", ""},
		{"ior-json", "ior-json", "ior", "-a POSIX -w -r -i 2 -b 64k -t 16k -O summaryFormat=JSON -o {dir}/ior.dat", ""},
		{"ior-csv", "ior-csv", "ior", "-a POSIX -w -r -i 3 -b 64k -t 16k -O summaryFormat=CSV -o {dir}/ior.dat", ""},
		{"ior-rank-csv", "ior-rank-csv", "ior", "-a POSIX -w -r -b 64k -t 16k -O saveRankPerformanceDetailsCSV={dir}/ranks.csv -o {dir}/ior.dat", "ranks.csv"},
		{"mdtest-human", "", "mdtest", "-n 20 -i 2 -d {dir}", ""},
		{"mdtest-human-ranks", "mdtest", "mdtest", "-n 10 -i 2 -P --showRankStatistics -u -d {dir}", ""},
		{"mdtest-json", "mdtest-json", "mdtest", "-n 20 -i 2 --format json -d {dir}", ""},
		{"mdtest-csv", "mdtest-csv", "mdtest", "-n 20 -i 2 --format csv -d {dir}", ""},
		{"mdtest-rank-csv", "mdtest-rank-csv", "mdtest", "-n 10 -i 2 --saveRankPerformanceDetails={dir}/ranks.csv -d {dir}", "ranks.csv"},
		{"coll-human", "", "coll", "-msglog 0:3 -iter 20 -time 1 PingPong Allreduce Barrier", ""},
		{"coll-imb", "imb", "coll", "-msglog 2:4 -iter 20 -time 1 Sendrecv Bcast", ""},
		{"coll-json", "json", "coll", "-msglog 0:2 -iter 20 -time 1 --json PingPong", ""},
		{"coll-csv", "csv", "coll", "-msglog 0:2 -iter 20 -time 1 --csv Allreduce", ""},
		{"wireup-human", "", "wireup", "", ""},
		{"wireup-json", "json", "wireup", "--json --pattern ring", ""},
		{"wireup-csv", "csv", "wireup", "--csv", ""},
	}
}

// argv is tc's command line with {dir} replaced by dir.
func (tc reportCase) argv(dir string) []string {
	return strings.Fields(strings.ReplaceAll(tc.args, "{dir}", dir))
}

// make runs tc again: it writes the archive and returns what the run
// printed, on stdout or in tc.file.
func (tc reportCase) make(t *testing.T, archive string) []byte {
	dir := t.TempDir()
	full := append([]string{"launch", "-n", "2", "--", "hpcbench", tc.cmd}, tc.argv(dir)...)
	r := run(t, 2*time.Minute, append(full, "--archive", archive)...)
	if r.Code != 0 {
		t.Fatalf("%q: exit %d\n%s", full, r.Code, r.Stderr)
	}
	if tc.file != "" {
		b, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(r.Stdout)
}

// TestReportGolden: hpcbench report of each golden archive prints, byte
// for byte, what the run that wrote it printed. -update runs them again.
func TestReportGolden(t *testing.T) {
	for _, tc := range reportCases() {
		t.Run(tc.name, func(t *testing.T) {
			archive := filepath.Join(reportDir, tc.name+".json")
			printed := filepath.Join(reportDir, tc.name+".stdout")
			if *update {
				stdout := tc.make(t, archive)
				if err := os.WriteFile(printed, stdout, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(printed)
			if err != nil {
				t.Fatalf("%v (run the test with -update to make it)", err)
			}
			args := []string{"report", archive}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			o := mainOutcome(args...)
			if o.code != 0 || o.stderr != "" {
				t.Fatalf("%q: exit %d, stderr %q", args, o.code, o.stderr)
			}
			if o.stdout != string(want) {
				t.Errorf("%q differs from %s:\n%s", args, printed, o.stdout)
			}
		})
	}
}

// TestReportSeveralFiles: several archives print in turn, each in its own
// benchmark's default view.
func TestReportSeveralFiles(t *testing.T) {
	var want bytes.Buffer
	var args []string
	for _, name := range []string{"wireup-human", "ior-human", "coll-human", "mdtest-human"} {
		b, err := os.ReadFile(filepath.Join(reportDir, name+".stdout"))
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
		args = append(args, filepath.Join(reportDir, name+".json"))
	}
	o := mainOutcome(append([]string{"report"}, args...)...)
	if o.code != 0 || o.stderr != "" || o.stdout != want.String() {
		t.Errorf("exit %d, stderr %q, stdout equal: %v", o.code, o.stderr, o.stdout == want.String())
	}
}

// TestReportBadInput: each mistake is one line on stderr naming the file
// (or the option) and what is wrong, exit 2, and nothing on stdout, even
// for the good files before the bad one.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(reportDir, "ior-human.json")
	coll := filepath.Join(reportDir, "coll-human.json")
	write := func(name string, render func(io.Writer) error) string {
		t.Helper()
		path := filepath.Join(dir, name)
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	res := readGoldenArchive(t, good)
	md := readGoldenArchive(t, filepath.Join(reportDir, "mdtest-human.json"))
	iorJSON := write("ior.json", func(w io.Writer) error { return report.WriteIORJSON(w, res) })
	mdJSON := write("mdtest.json", func(w io.Writer) error { return report.WriteMdtestJSON(w, md) })
	sweepJSON := write("sweep.json", func(w io.Writer) error { return report.WriteMdtestSweepJSON(w, []*report.Result{md, md}) })
	text := write("ior.txt", func(w io.Writer) error { return report.WriteIOR(w, res) })
	truncated := write("truncated.json", func(w io.Writer) error {
		var b bytes.Buffer
		if err := report.WriteJSON(&b, res); err != nil {
			return err
		}
		_, err := w.Write(b.Bytes()[:b.Len()/2])
		return err
	})
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{}, "hpcbench: report: want one or more archives (FILE...), got none"},
		{"unknown format", []string{"--format", "xml", good},
			`hpcbench: report: --format: unknown format "xml": want one of human, json, csv, tables, ior, ior-json, ior-csv, ior-rank-csv, mdtest, mdtest-json, mdtest-csv, mdtest-rank-csv, imb, io500, fabtests`},
		{"mismatched benchmark", []string{"--format", "ior", good, coll},
			`hpcbench: report: ` + coll + `: format "ior" does not fit benchmark "imb": its formats are human, json, csv, tables, imb`},
		{"missing file", []string{good, missing}, "hpcbench: report: " + missing + ": no such file or directory"},
		{"directory", []string{dir}, "hpcbench: report: " + dir + ": is a directory"},
		{"IOR's own JSON", []string{iorJSON},
			`hpcbench: report: ` + iorJSON + `: "schema": "hpcbench/ior/1" is IOR's own JSON view (-O summaryFormat=JSON), not an hpcbench/1 archive: --archive FILE writes one`},
		{"mdtest's own JSON", []string{good, mdJSON},
			`hpcbench: report: ` + mdJSON + `: "schema": "hpcbench/mdtest/1" is mdtest's own JSON view (--format json), not an hpcbench/1 archive: --archive FILE writes one`},
		{"an mdtest sweep's JSON", []string{sweepJSON},
			`hpcbench: report: ` + sweepJSON + `: "schema": "hpcbench/mdtest/1" is mdtest's own JSON view (--format json), not an hpcbench/1 archive: --archive FILE writes one`},
		{"text", []string{text}, "hpcbench: report: " + text + ": line 1, column 1: not valid JSON: invalid character 'h' looking for beginning of value"},
		{"truncated", []string{truncated}, "hpcbench: report: " + truncated + ": line 480, column 2: the JSON ends before the document does: is the file cut short?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mainOutcome(append([]string{"report"}, tc.args...)...)
			if o.code != 2 || o.stdout != "" || o.stderr != tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", o.code, o.stdout, o.stderr, tc.want)
			}
		})
	}
}

// readGoldenArchive reads the archive at path.
func readGoldenArchive(t *testing.T, path string) *report.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}
