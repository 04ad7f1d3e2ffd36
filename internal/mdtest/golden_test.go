package mdtest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden runs whole mdtest runs on the DUMMY backend with a fake clock
// (every reading 1 ms after the last) and fixed dates, and compares the
// human, JSON and CSV summaries and the per-rank CSV with
// testdata/*.golden: the engine's phases, timing and statistics and the
// rendering end to end, a -f/-l/-s sweep (one Result per number of tasks)
// included.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks int
		args  string
	}{
		{"all-phases", 2, "-a DUMMY -n 20 -i 2 -d md"},
		{"files-rankstats", 2, "-a DUMMY -n 20 -F -w 4096 -e 4096 -i 2 -P --showRankStatistics -d md"},
		{"tree-create-stat", 3, "-a DUMMY -z 1 -b 2 -I 4 -u -C -T -r -d md"},
		{"sweep", 3, "-a DUMMY -n 6 -F -f 1 -l 3 -s 2 -d md"},
		{"all-procs", 2, "-a DUMMY -n 10 -i 2 -P --print-all-procs -d md"},
		{"no-items", 2, "-a DUMMY -d md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := runJob(t, tc.ranks, tc.args, true, nil)
			noErrors(t, j)
			for _, f := range []struct {
				ext   string
				write func(io.Writer, []*report.Result) error
			}{
				{"human", report.WriteMdtestSweep},
				{"json", report.WriteMdtestSweepJSON},
				{"csv", report.WriteMdtestSweepCSV},
				{"ranks.csv", report.WriteMdtestSweepRankCSV},
			} {
				var b bytes.Buffer
				if err := f.write(&b, j.all); err != nil {
					t.Fatalf("%s: %v", f.ext, err)
				}
				testenv.Golden(t, filepath.Join("testdata", tc.name+"."+f.ext+".golden"), b.Bytes(), *update)
			}
		})
	}
}

// TestGoldenPerOpCSV runs a file test with --savePerOpDataCSV on the fake
// clock and compares rank 1's four files with testdata/perop-*.golden:
// mdtest's name (PREFIX-PHASE-RANK.csv), header and C number formats,
// with tp as -w (create, remove), -e (read) or 1 (stat) over the runtime.
func TestGoldenPerOpCSV(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "op")
	j := runJob(t, 2, "-a DUMMY -n 3 -F -w 100 -e 50 --savePerOpDataCSV="+prefix+" -d md", true, nil)
	noErrors(t, j)
	for _, phase := range []string{report.MdtestFileCreate, report.MdtestFileStat, report.MdtestFileRead, report.MdtestFileRemove} {
		for rank := range 2 {
			got, err := os.ReadFile(fmt.Sprintf("%s-%s-%05d.csv", prefix, phase, rank))
			if err != nil {
				t.Fatal(err)
			}
			if rank == 1 {
				name := "perop-" + strings.ReplaceAll(strings.ToLower(phase), " ", "-") + ".golden"
				testenv.Golden(t, filepath.Join("testdata", name), got, *update)
			}
		}
	}
}
