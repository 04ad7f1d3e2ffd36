package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// archiveCase is one benchmark's small run with --archive, and the view
// its stdout is.
type archiveCase struct {
	name   string
	args   []string // after "hpcbench", archive flag included (a.json)
	view   func(io.Writer, *report.Result) error
	hosts  int // Run.Hosts the archive says
	params bool
}

func archiveCases() []archiveCase {
	return []archiveCase{
		{"wireup", []string{"wireup", "--archive", "a.json"},
			func(w io.Writer, r *report.Result) error { return report.Write(w, r, report.FormatText) }, 1, true},
		{"coll", []string{"coll", "--archive", "a.json", "-msglog", "0:2", "-iter", "10", "-time", "1", "PingPong", "Allreduce"},
			report.WriteIMB, 1, true},
		{"ior", []string{"ior", "-a", "DUMMY", "-b", "64k", "-t", "16k", "-w", "-r", "-i", "2", "-O", "archiveFile=a.json"},
			report.WriteIOR, 1, true},
		{"mdtest", []string{"mdtest", "-a", "DUMMY", "-n", "10", "-F", "-d", "md", "--archive", "a.json"},
			func(w io.Writer, r *report.Result) error { return report.WriteMdtestSweep(w, []*report.Result{r}) }, 1, true},
	}
}

// readRunArchive reads path back with report.ReadJSON.
func readRunArchive(t *testing.T, path string) *report.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("archive: %v", err)
	}
	defer f.Close()
	res, err := report.ReadJSON(f)
	if err != nil {
		t.Fatalf("archive does not read back: %v", err)
	}
	return res
}

// TestArchive: every benchmark's --archive (ior's -O archiveFile) under
// a 2-rank launch writes the run's Result, which reads back with the run
// record filled, and from which the benchmark's view renders exactly what
// the run printed. The archive, normalised, and that rendering of it are
// the goldens in testdata/archive (-update rewrites them).
func TestArchive(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range archiveCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"launch", "-n", "2", "--", "hpcbench"}, tc.args...)
			r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
			res := readRunArchive(t, filepath.Join(dir, "a.json"))
			run := res.Run
			if run.Benchmark == "" || len(run.Command) < 2 || run.Command[1] != tc.name || run.Version == "" ||
				run.Ranks != 2 || run.Hosts != tc.hosts || !slices.Equal(run.Hostnames, []string{host}) ||
				run.Start.IsZero() || run.End.Before(run.Start) || run.Env["pmi"] != "fd" {
				t.Errorf("run record: %+v", run)
			}
			if tc.name != "wireup" && run.Env["transport"] != "shm" {
				t.Errorf("transport %q, want shm", run.Env["transport"])
			}
			if tc.params && len(res.Params) == 0 {
				t.Error("no Params")
			}
			var view bytes.Buffer
			if err := tc.view(&view, res); err != nil {
				t.Fatal(err)
			}
			if view.String() != r.Stdout {
				t.Errorf("the archive renders differently from what the run printed:\n--- printed\n%s\n--- rendered\n%s", r.Stdout, view.String())
			}
			normalise(res)
			var js, out bytes.Buffer
			if err := report.WriteJSON(&js, res); err != nil {
				t.Fatal(err)
			}
			if err := tc.view(&out, res); err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "archive", tc.name+".json"), js.Bytes(), *update)
			testenv.Golden(t, filepath.Join("testdata", "archive", tc.name+".stdout"), out.Bytes(), *update)
		})
	}
}

// normalise replaces what changes from run to run (dates, host names,
// version, the machine, measured figures) with fixed values, so that an
// archive makes a stable golden file.
func normalise(r *report.Result) {
	run := &r.Run
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	run.Start, run.End = start, start.Add(1500*time.Millisecond)
	run.Version = "hpcbench test"
	hostNames := map[string]string{} // the real names, for the per-rank and per-host tables
	for i, h := range run.Hostnames {
		run.Hostnames[i] = "host" + string(rune('A'+i))
		hostNames[h] = run.Hostnames[i]
	}
	for k := range run.Env {
		switch k {
		case report.EnvMachine:
			run.Env[k] = "Linux hostA"
		case "platform":
			run.Env[k] = "hostA(Linux)"
		case "cpus":
			run.Env[k] = "4"
		case report.EnvOversubscribed:
			delete(run.Env, k)
		}
	}
	fix := func(float64) float64 { return 1 }
	for ti := range r.Tables {
		tb := &r.Tables[ti]
		var metrics []report.Column
		for _, c := range tb.Columns {
			if c.Kind == report.KindMetric {
				metrics = append(metrics, c)
			}
		}
		for ri := range tb.Rows {
			row := &tb.Rows[ri]
			for mi := range row.Metrics {
				if mi < len(metrics) && (metrics[mi].Better != "" || metrics[mi].Name == "elapsed" ||
					strings.Contains(strings.ToLower(metrics[mi].Name), "stddev")) {
					row.Metrics[mi] = fix(row.Metrics[mi])
				}
			}
			for li, l := range row.Labels {
				if h, ok := hostNames[l]; ok {
					row.Labels[li] = h
				}
				if _, err := time.Parse(time.RFC3339, l); err == nil {
					row.Labels[li] = start.Format(time.RFC3339) // IOR's StartTime
				}
			}
			for _, s := range row.Samples {
				for i := range s {
					s[i] = fix(s[i])
				}
			}
		}
	}
	// A straggler note comes and goes with the run's timing: the
	// normalised figures (all 1) have none. Other notes name the phase,
	// then times, which vary.
	for ti := range r.Tables {
		if r.Tables[ti].Dist == report.DistRanks {
			r.Tables[ti].Notes, r.Tables[ti].Stragglers = nil, nil
		}
		for ni, n := range r.Tables[ti].Notes {
			name, _, _ := strings.Cut(n, ":")
			r.Tables[ti].Notes[ni] = name + ": (figures vary from run to run)"
		}
	}
	for i, p := range r.Params {
		if strings.Contains(p.Name, "platform") {
			r.Params[i].Value = "hostA(Linux)"
		}
	}
}

// TestArchiveBadPath: an archive that cannot be written is refused before
// any work, in one line naming the flag, exit 2, nothing created.
func TestArchiveBadPath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"wireup", "--archive", "no/a.json"}, "wireup: --archive no/a.json"},
		{[]string{"coll", "--archive", ".", "PingPong"}, "coll: --archive ."},
		{[]string{"ior", "-a", "DUMMY", "-O", "archiveFile=no/a.json"}, "ior: -O archiveFile no/a.json"},
		{[]string{"ior", "-a", "DUMMY", "--archive", "no/a.json"}, "ior: -O archiveFile no/a.json"},
		{[]string{"mdtest", "-a", "DUMMY", "-n", "2", "-d", "md", "--archive", "no/a.json"}, "mdtest: --archive no/a.json"},
	} {
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, tc.args...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "hpcbench: "+tc.flag+": ") || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line starting %q", tc.args, r.Code, r.Stderr, tc.flag)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%v: created %v", tc.args, ents)
		}
	}
}

// TestArchiveMdtestSweep: an archive holds one run, so an mdtest sweep of
// several task counts with --archive is refused (exit 2, one line, nothing
// created) rather than archived as its first task count only; a sweep of
// one task count is archived.
func TestArchiveMdtestSweep(t *testing.T) {
	dir := t.TempDir()
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "mdtest", "-a", "DUMMY", "-n", "4", "-f", "1", "-l", "2", "-d", "md", "--archive", "a.json")
	if r.Code != 2 || !strings.Contains(r.Stderr, "hpcbench: mdtest: --archive: -f 1 -l 2 is a sweep") {
		t.Errorf("sweep of 1 and 2 tasks with --archive: exit %d, stderr %q; want 2 and the refusal", r.Code, r.Stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("created %v", ents)
	}
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "mdtest", "-a", "DUMMY", "-n", "4", "-f", "2", "-l", "2", "-d", "md", "--archive", "a.json")
	if r.Code != 0 {
		t.Fatalf("one task count with --archive: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.json")); err != nil {
		t.Errorf("no archive: %v", err)
	}
}

// TestTwoHosts: ranks 0-1 named nodeA and 2-3 nodeB through the pipeline's
// host gathering (HPCBENCH_HOSTNAME) give an archive with 2 hosts, both
// named, and IOR's 2 nodes of 2 clients.
func TestTwoHosts(t *testing.T) {
	dir := t.TempDir()
	script := `if [ "$PMI_RANK" -lt 2 ]; then HPCBENCH_HOSTNAME=nodeA; else HPCBENCH_HOSTNAME=nodeB; fi; export HPCBENCH_HOSTNAME; ` +
		`exec "$0" ior -a DUMMY -b 16k -t 4k -w -O archiveFile=a.json`
	r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "4", "--", "sh", "-c", script, hpcbench)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res := readRunArchive(t, filepath.Join(dir, "a.json"))
	if res.Run.Hosts != 2 || !slices.Equal(res.Run.Hostnames, []string{"nodeA", "nodeB"}) || res.Run.Ranks != 4 {
		t.Errorf("hosts %d %q, ranks %d; want 2 [nodeA nodeB], 4", res.Run.Hosts, res.Run.Hostnames, res.Run.Ranks)
	}
	for _, want := range []string{"nodes               : 2", "clients per node    : 2"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestTwoHostsWireup: wireup has no communicator; its ranks send their
// host names to rank 0 with their times, and the archive names both.
func TestTwoHostsWireup(t *testing.T) {
	dir := t.TempDir()
	script := `if [ "$PMI_RANK" -lt 1 ]; then HPCBENCH_HOSTNAME=nodeA; else HPCBENCH_HOSTNAME=nodeB; fi; export HPCBENCH_HOSTNAME; ` +
		`exec "$0" wireup --archive a.json`
	r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, "launch", "-n", "3", "--", "sh", "-c", script, hpcbench)
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	res := readRunArchive(t, filepath.Join(dir, "a.json"))
	if res.Run.Hosts != 2 || !slices.Equal(res.Run.Hostnames, []string{"nodeA", "nodeB"}) || res.Run.Ranks != 3 {
		t.Errorf("hosts %d %q, ranks %d; want 2 [nodeA nodeB], 3", res.Run.Hosts, res.Run.Hostnames, res.Run.Ranks)
	}
	if !strings.Contains(r.Stdout, "2 (nodeA, nodeB)") {
		t.Errorf("stdout does not name both hosts:\n%s", r.Stdout)
	}
}

// TestArchiveBadPathLaunched: under a 3-rank launch, a bad archive path
// is said once for the job (rank 0's, which writes the archive), exit 2,
// and the launcher names rank 0; nothing is created.
func TestArchiveBadPathLaunched(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"wireup", "--archive", "no/a.json"}, "wireup: --archive no/a.json"},
		{[]string{"coll", "--archive", "no/a.json", "PingPong"}, "coll: --archive no/a.json"},
		{[]string{"ior", "-a", "DUMMY", "-O", "archiveFile=no/a.json"}, "ior: -O archiveFile no/a.json"},
		{[]string{"mdtest", "-a", "DUMMY", "-n", "2", "-d", "md", "--archive", "no/a.json"}, "mdtest: --archive no/a.json"},
	} {
		args := append([]string{"launch", "-n", "3", "--", hpcbench}, tc.args...)
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, args...)
		if r.Code != 2 || strings.Count(r.Stderr, tc.flag) != 1 || strings.Count(r.Stderr, "\n") != 2 || !strings.Contains(r.Stderr, "rank 0 ") {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q once and the launcher naming rank 0", tc.args, r.Code, r.Stderr, tc.flag)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%v: created %v", tc.args, ents)
		}
	}
}
