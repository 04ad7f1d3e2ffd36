package ior

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"testing"

	"github.com/hpcbench/hpcbench/internal/testenv"
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
		// options that were refused: memory held, node counts assumed,
		// the platform given, -a as spelled, a fractional -d
		{"memory-nodes", 2, "-a dummy -b 512k -t 256k -w -r -d 0.01 -O memoryPerTask=1m,numNodes=2,numTasksOnNode0=1,platform=lab(Linux) -o ior_mem"},
		// -c: the Options block's hints and plan, the archive's table
		{"collective", 2, "-a DUMMY -c -t 47008 -b 47008 -s 40 -w -r -O cb_buffer_size=1m,collectiveCall=phase -o ior_coll"},
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
				testenv.Golden(t, filepath.Join("testdata", tc.name+"."+f.ext+".golden"), b.Bytes(), *update)
			}
			if tb := table(j.res, CollectiveTable); tb != nil {
				var b bytes.Buffer
				one := report.New("ior")
				one.Tables = []report.Table{*tb}
				if err := report.WriteText(&b, one); err != nil {
					t.Fatal(err)
				}
				testenv.Golden(t, filepath.Join("testdata", tc.name+".coll.golden"), b.Bytes(), *update)
			}
		})
	}
}

// TestProgress: what rank 0 reports as the run goes renders, at every
// step, a prefix of the next step and of the final human report, so the
// command can print IOR's rows as they come.
func TestProgress(t *testing.T) {
	var steps [][]byte
	j := runJobProgress(t, 2, "-a DUMMY -b 4m -t 1m -F -w -r -v -i 2 -o f", true, func(r *report.Result) {
		var b bytes.Buffer
		if err := report.WriteIORProgress(&b, r); err != nil {
			t.Errorf("WriteIORProgress: %v", err)
		}
		steps = append(steps, b.Bytes())
	})
	noErrors(t, j)
	var final bytes.Buffer
	if err := report.WriteIOR(&final, j.res); err != nil {
		t.Fatal(err)
	}
	// Test start, then write, read and remove for each of 2 repetitions.
	if len(steps) != 1+3*2 {
		t.Fatalf("%d progress reports, want 7", len(steps))
	}
	for i, s := range steps {
		next := final.Bytes()
		if i+1 < len(steps) {
			next = steps[i+1]
		}
		if !bytes.HasPrefix(next, s) || len(next) <= len(s) {
			t.Fatalf("step %d is not a proper prefix of what follows:\n%s", i, s)
		}
	}
}
