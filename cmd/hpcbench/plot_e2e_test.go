package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlotCollArchive: the archive a real coll run writes charts, as a PNG
// and in the terminal, one line per run, named by its file.
func TestPlotCollArchive(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a.json", "b.json"} {
		f := filepath.Join(dir, name)
		r := run(t, 2*time.Minute, "launch", "-n", "2", "--", "hpcbench", "coll", "-iter", "10", "-time", "1", "-msglog", "0:12", "PingPong", "--output", f)
		if r.Code != 0 {
			t.Fatalf("coll: exit %d\n%s", r.Code, r.Stderr)
		}
		files = append(files, f)
	}
	out := filepath.Join(dir, "pp.png")
	r := run(t, time.Minute, append([]string{"plot", "-o", out, "--terminal"}, files...)...)
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("plot: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{"latency against message size", "latency [us], log 10", "message size, log 2", "1 KiB", "* a.json\n", "+ b.json\n"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("terminal chart lacks %q:\n%s", want, r.Stdout)
		}
	}
	checkPNG(t, out)
}

// TestPlotFabricWireup: the archives real fabric and wireup runs write
// chart without --chart: latency or bandwidth against message size, the
// phases' times as bars; allpairs is refused in one line.
func TestPlotFabricWireup(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cmd  []string
		want []string // in the terminal chart
	}{
		{"pingpong", []string{"-n", "2", "--", "hpcbench", "fabric", "pingpong", "-p", "shm", "-S", "all", "--max-size", "4k", "-I", "50"},
			[]string{"latency against message size", "latency [us], log 10", "1 B", "4 KiB", "* pingpong.json\n"}},
		{"bw", []string{"-n", "2", "--", "hpcbench", "fabric", "bw", "-p", "shm", "-S", "all", "--max-size", "4k", "-I", "50"},
			[]string{"bandwidth against message size", "bandwidth [MB/s], log 10", "* bw.json\n"}},
		{"wireup", []string{"-n", "3", "--", "hpcbench", "wireup"},
			[]string{"time per phase, mean over the ranks", "init ", "barrier ", "finalize "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, tc.name+".json")
			r := run(t, 2*time.Minute, append(append([]string{"launch"}, tc.cmd...), "--archive", f)...)
			if r.Code != 0 {
				t.Fatalf("%s: exit %d\n%s", tc.name, r.Code, r.Stderr)
			}
			out := filepath.Join(dir, tc.name+".png")
			r = run(t, time.Minute, "plot", "-o", out, "--terminal", f)
			if r.Code != 0 || r.Stderr != "" {
				t.Fatalf("plot: exit %d\n%s", r.Code, r.Stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("terminal chart lacks %q:\n%s", want, r.Stdout)
				}
			}
			checkPNG(t, out)
		})
	}
}

// checkPNG checks that file is a chart's PNG: 520 pixels high, 800 to 2000
// wide.
func checkPNG(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dx() > 2000 || b.Dy() != 520 {
		t.Errorf("%s: bounds %v, want 520 high and 800 to 2000 wide", file, b)
	}
}
