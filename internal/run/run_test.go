package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// noEnv finds nothing: the job is a singleton.
func noEnv(string) (string, bool) { return "", false }

var errSoft = errors.New("verification failed")

// usageErr is a stand-in for the command's usage error.
type usageErr struct{ error }

// spec returns a singleton runSpec whose engine reports two phases and
// returns a one-table Result, or fails with fail.
func spec(archive string, fail error, phases *[]string, rendered *[]*report.Result) runSpec {
	return runSpec{
		Name: "bench", Args: []string{"-x", "1"},
		Soft:    errSoft,
		Usage:   func(err error) bool { var u usageErr; return errors.As(err, &u) },
		Archive: archive, ArchiveFlag: "--archive",
		Getenv: func(k string) (string, bool) {
			if k == HostnameEnv {
				return "nodeA", true
			}
			return "", false
		},
		Phase: func(name string, iter int, done, total int64) {
			*phases = append(*phases, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
		},
		Engine: func(ctx context.Context, e *Env) (*report.Result, error) {
			e.Phase("write", 0, 0, 10)
			e.Phase("write", 0, 10, 10)
			r := report.New("bench")
			r.Run = e.Record.BaseRun()
			r.Tables = []report.Table{{Name: "t", Columns: []report.Column{
				{Name: "size", Kind: report.KindLabel}, {Name: "bw", Kind: report.KindMetric, Unit: "B/s", Better: report.BetterHigher}},
				Rows: []report.Row{{Labels: []string{"1"}, Metrics: []float64{2}}}}}
			if errors.As(fail, new(usageErr)) || (fail != nil && !errors.Is(fail, errSoft)) {
				return nil, fail
			}
			return r, fail
		},
		Render: func(res *report.Result) error { *rendered = append(*rendered, res); return nil },
	}
}

func withSingleton(s runSpec) runSpec {
	s.Job.Getenv = noEnv
	return s
}

func TestLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     error
		code     int    // 0: nil error
		msg      string // in the ExitError
		archived bool
	}{
		{"ok", nil, 0, "", true},
		{"soft", fmt.Errorf("bench: 3 bad: %w", errSoft), 1, "bench: 3 bad", true},
		{"hard", errors.New("bench: disk on fire"), 1, "disk on fire", false},
		{"usage", usageErr{errors.New("bench: -l 9: more than the job's 1 ranks")}, 2, "-l 9", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), "run.json")
			var phases []string
			var rendered []*report.Result
			var stderr strings.Builder
			s := withSingleton(spec(archive, tc.fail, &phases, &rendered))
			s.Stderr = &stderr
			err := mainSpec(context.Background(), s)
			var ee *ExitError
			// A benchmark failure's message is the caller's to print; a
			// hard failure's the pipeline prints.
			said := stderr.String()
			if errors.As(err, &ee) {
				said += ee.Msg
			}
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("Main: %v", err)
			case tc.code != 0 && (!errors.As(err, &ee) || ee.Code != tc.code || !strings.Contains(said, tc.msg) ||
				strings.Count(said, tc.msg) != 1):
				t.Fatalf("Main: %v, stderr %q; want exit %d, %q said once", err, stderr.String(), tc.code, tc.msg)
			}
			if want := []string{"write 0 0/10", "write 0 10/10"}; !slices.Equal(phases, want) {
				t.Errorf("phases %q, want %q", phases, want)
			}
			f, err := os.Open(archive)
			if !tc.archived {
				if err == nil {
					f.Close()
					t.Error("archive written after a hard failure")
				}
				if len(rendered) != 0 {
					t.Error("views rendered after a hard failure")
				}
				return
			}
			if err != nil {
				t.Fatalf("no archive: %v", err)
			}
			defer f.Close()
			res, err := report.ReadJSON(f)
			if err != nil {
				t.Fatalf("archive: %v", err)
			}
			run := res.Run
			if run.Benchmark != "bench" || strings.Join(run.Command, " ") != "hpcbench bench -x 1" || run.Version == "" ||
				run.Ranks != 1 || run.Hosts != 1 || !slices.Equal(run.Hostnames, []string{"nodeA"}) ||
				run.Start.IsZero() || run.End.Before(run.Start) || run.Env["pmi"] != "singleton" || run.Env["transport"] != "self" {
				t.Errorf("run record %+v", run)
			}
			if failed := run.Env[FailedEnv]; (tc.fail != nil) != (failed != "") {
				t.Errorf("failed mark %q for engine error %v", failed, tc.fail)
			}
			if len(rendered) != 1 || rendered[0].Run.Env[FailedEnv] != run.Env[FailedEnv] {
				t.Errorf("rendered %d results, not the archived one", len(rendered))
			}
		})
	}
}

// TestMainBadArchive: an archive path that cannot be written is a usage
// error naming the flag, before the engine runs, and creates nothing.
func TestMainBadArchive(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, msg string }{
		{"missing-dir", filepath.Join(dir, "no", "run.json"), "does not exist"},
		{"is-dir", dir, "is a directory"},
		{"not-a-dir", filepath.Join(dir, "file", "run.json"), "not a directory"},
		{"read-only", filepath.Join(ro, "run.json"), "not writable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "read-only" && os.Geteuid() == 0 {
				t.Skip("root writes anywhere")
			}
			if tc.name == "not-a-dir" {
				os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
			}
			var phases []string
			var rendered []*report.Result
			s := withSingleton(spec(tc.path, nil, &phases, &rendered))
			var stderr strings.Builder
			s.Stderr = &stderr
			err := mainSpec(context.Background(), s)
			var ee *ExitError
			msg := stderr.String()
			if !errors.As(err, &ee) || ee.Code != 2 || !strings.HasPrefix(msg, "hpcbench: bench: --archive "+tc.path) ||
				!strings.Contains(msg, tc.msg) || strings.Count(msg, "\n") != 1 {
				t.Errorf("Main: %v, stderr %q; want exit 2, one line naming --archive and %q", err, msg, tc.msg)
			}
			if len(phases) != 0 {
				t.Error("the engine ran")
			}
			ents, _ := os.ReadDir(filepath.Dir(tc.path))
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".run.json") || e.Name() == "run.json" {
					t.Errorf("%s created", e.Name())
				}
			}
		})
	}
}
