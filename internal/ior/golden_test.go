package ior

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden runs whole IOR tests on the DUMMY backend with a fake clock
// (every reading 1 ms after the last) and fixed dates, and compares all
// three output formats, plus the per-rank CSV, with testdata/*.golden:
// the engine's figures, the reduction and the rendering end to end.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks int
		args  string
	}{
		{"shared", 2, "-a DUMMY -b 256m -t 64m -w -r -i 3 -o ior_shared"},
		{"fpp-verbose", 3, "-a DUMMY -b 4m -t 1m -s 2 -F -C -w -r -v -o ior_fpp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := runJob(t, tc.ranks, tc.args, true)
			noErrors(t, j)
			for _, f := range []struct {
				ext   string
				write func(io.Writer, *report.Result) error
			}{
				{"human", report.WriteIOR},
				{"json", report.WriteIORJSON},
				{"csv", report.WriteIORCSV},
				{"ranks.csv", report.WriteIORRankCSV},
			} {
				var b bytes.Buffer
				if err := f.write(&b, j.res); err != nil {
					t.Fatalf("%s: %v", f.ext, err)
				}
				path := filepath.Join("testdata", tc.name+"."+f.ext+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(b.Bytes(), want) {
					t.Errorf("%s differs from %s:\n%s", f.ext, path, b.Bytes())
				}
			}
		})
	}
}
