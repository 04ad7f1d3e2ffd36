package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// TestMainBadOutputs: every output a runSpec lists is checked with the
// archive before the engine runs; one that cannot be written is exit 2
// and one line naming its flag, and the check leaves nothing behind.
// /proc takes no new file even from root, whom access(2) lets write.
func TestMainBadOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		outs []Output
		want string // "" when every output is fine
	}{
		{"fine", []Output{{Flag: "--output", Path: filepath.Join(dir, "r.csv")}, {Flag: "-O summaryFile", Path: filepath.Join(dir, "s.txt")}}, ""},
		{"proc", []Output{{Flag: "--output", Path: filepath.Join(dir, "r.csv")}, {Flag: "-O summaryFile", Path: "/proc/x"}}, "hpcbench: bench: -O summaryFile /proc/x: "},
		{"directory", []Output{{Flag: "--saveRankPerformanceDetails", Path: dir}}, "hpcbench: bench: --saveRankPerformanceDetails " + dir + ": is a directory, want a file"},
		{"one file twice", []Output{{Flag: "--output", Path: filepath.Join(dir, "r.json")}, {Flag: "-O summaryFile", Path: dir + "/./r.json"}},
			"hpcbench: bench: --output " + filepath.Join(dir, "r.json") + " and -O summaryFile " + dir + "/./r.json name one file"},
		{"the data's file", []Output{{Flag: "-o", Path: filepath.Join(dir, "d"), Data: true}, {Flag: "--output", Path: filepath.Join(dir, "d")}},
			"hpcbench: bench: -o " + filepath.Join(dir, "d") + " and --output " + filepath.Join(dir, "d") + " name one file"},
		{"one option twice", []Output{{Flag: "--output", Path: filepath.Join(dir, "x.json")}, {Flag: "--output", Path: filepath.Join(dir, "x.json")}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var phases []string
			var rendered []*report.Result
			s := withSingleton(spec("", nil, &phases, &rendered))
			s.Outputs = tc.outs
			var stderr strings.Builder
			s.Stderr = &stderr
			err := mainSpec(context.Background(), s)
			msg := stderr.String()
			if tc.want == "" {
				if err != nil || len(phases) == 0 {
					t.Errorf("Main: %v, stderr %q; want the run", err, msg)
				}
			} else {
				var ee *ExitError
				if !errors.As(err, &ee) || ee.Code != 2 || !strings.HasPrefix(msg, tc.want) || strings.Count(msg, "\n") != 1 {
					t.Errorf("Main: %v, stderr %q; want exit 2 and one line %q…", err, msg, tc.want)
				}
				if len(phases) != 0 {
					t.Error("the engine ran")
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left in %s: %v", dir, ents)
			}
		})
	}
}
