package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotTestdata holds the archives report/plot's tests chart.
const plotTestdata = "../../report/plot/testdata"

// TestPlotBadInput: every refusal is one line naming what is wrong, exit
// 2, and creates nothing.
func TestPlotBadInput(t *testing.T) {
	td, err := filepath.Abs(plotTestdata)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	notArchive := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(notArchive, []byte(`{"benchmark": "ior"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	coll, md := filepath.Join(td, "coll-a.json"), filepath.Join(td, "mdtest-a.json")
	allpairs, wireup := filepath.Join(td, "fabric-allpairs.json"), filepath.Join(td, "wireup-a.json")
	out := filepath.Join(dir, "out.png")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{coll}, "plot: no output: give -o FILE (.png or .svg) or --terminal"},
		{"no archives", []string{"-o", out}, "plot: no archives"},
		{"pdf", []string{"-o", filepath.Join(dir, "out.pdf"), coll}, `plot: -o "` + filepath.Join(dir, "out.pdf") + `": the file name must end in .png or .svg`},
		{"no extension", []string{"-o", filepath.Join(dir, "out"), coll}, "must end in .png or .svg"},
		{"chart", []string{"--chart", "pie", "-o", out, coll}, `plot: --chart "pie": want one of auto, size, phase, time`},
		{"missing", []string{"-o", out, filepath.Join(dir, "gone.json")}, "gone.json: no such file or directory"},
		{"not an archive", []string{"-o", out, notArchive}, `notes.json: no "schema" key, want "schema": "hpcbench/1": not an hpcbench archive`},
		{"mixed", []string{"-o", out, coll, md}, `is a "imb" archive and ` + md + ` a "mdtest" one: plot one benchmark at a time`},
		{"no chart", []string{"--chart", "size", "-o", out, md}, `plot: no size chart for "mdtest" archives`},
		{"metric", []string{"--metric", "speed", "-o", out, coll}, `plot: --metric "speed": want one of auto, latency, bandwidth`},
		{"metric of mdtest", []string{"--metric", "bandwidth", "-o", out, md}, `plot: --metric bandwidth: only size charts of coll and fabric archives choose their figure, not a phase chart of "mdtest" archives`},
		{"allpairs", []string{"-o", out, allpairs}, "fabric-allpairs.json: fabric allpairs holds matrices of host pairs, not figures against size, phase or time"},
		{"wireup time", []string{"--chart", "time", "-o", out, wireup}, "wireup-a.json: no time-series table"},
		{"coll and wireup", []string{"-o", out, coll, wireup}, "plot one benchmark at a time (coll and fabric ones go together on a size chart)"},
		{"unknown option", []string{"-x", coll}, `plot: unknown option "-x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mainOutcome(append([]string{"plot"}, tc.args...)...)
			if o.code != 2 || o.stdout != "" || !strings.Contains(o.stderr, tc.want) || strings.Count(o.stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line with %q", o.code, o.stdout, o.stderr, tc.want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("the failed plot left files behind: %v", entries)
			}
		})
	}
}

// TestPlotWrites: -o writes a PNG or an SVG as its name ends, --terminal
// the chart report/plot's golden file has, and both at once do both.
func TestPlotWrites(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(plotTestdata)
	pngOut, svgOut := filepath.Join(dir, "c.PNG"), filepath.Join(dir, "c.svg")
	o := mainOutcome("plot", "coll-a.json", "coll-b.json", "-o", pngOut)
	if o.code != 0 || o.stdout != "" || o.stderr != "" {
		t.Fatalf("png: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	data, err := os.ReadFile(pngOut)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("%s is not a PNG: %v", pngOut, err)
	}
	o = mainOutcome("plot", "--terminal", "-o", svgOut, "coll-a.json", "coll-b.json")
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("svg: exit %d, stderr %q", o.code, o.stderr)
	}
	want, err := os.ReadFile(filepath.Join("TestTerminal", "imb.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if o.stdout != string(want) {
		t.Errorf("--terminal printed\n%s\nwant TestTerminal/imb.golden:\n%s", o.stdout, want)
	}
	svg, err := os.ReadFile(svgOut)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte(`class="series"`)) {
		t.Errorf("%s is not the chart's SVG:\n%.200s", svgOut, svg)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("want c.PNG and c.svg and no temporary files, have %v", entries)
	}
}
