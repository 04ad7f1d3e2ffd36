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
// and in the terminal, one line per run.
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
	for _, want := range []string{"latency against message size", "latency [us], log 10", "message size [B], log 2", "* " + files[0], "+ " + files[1]} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("terminal chart lacks %q:\n%s", want, r.Stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() < 900 || img.Bounds().Dy() != 520 {
		t.Errorf("%s: %v, bounds %v", out, err, img.Bounds())
	}
}
