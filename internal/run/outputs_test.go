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
		{"fine", []Output{{"--output", filepath.Join(dir, "r.csv")}, {"-O summaryFile", filepath.Join(dir, "s.txt")}}, ""},
		{"proc", []Output{{"--output", filepath.Join(dir, "r.csv")}, {"-O summaryFile", "/proc/x"}}, "hpcbench: bench: -O summaryFile /proc/x: "},
		{"directory", []Output{{"--saveRankPerformanceDetails", dir}}, "hpcbench: bench: --saveRankPerformanceDetails " + dir + ": is a directory, want a file"},
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
