package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// charts are the archive sets every writer test draws, one per chart the
// package doc lists.
var charts = []struct {
	name  string
	kind  Kind
	files []string
	want  Kind // the chart Select picks
	lines int  // series
}{
	{"imb", KindAuto, []string{"coll-a.json", "coll-b.json"}, KindSize, 4},                 // 2 runs x PingPong, Allreduce
	{"imb-one", KindAuto, []string{"coll-a.json"}, KindSize, 2},                            // PingPong, Allreduce
	{"ior-sizes", KindAuto, []string{"ior-sizes-a.json", "ior-sizes-b.json"}, KindSize, 4}, // write, read per run
	{"ior-phase", KindAuto, []string{"ior-one-a.json", "ior-one-b.json"}, KindPhase, 2},
	{"ior-sizes-phase", KindPhase, []string{"ior-sizes-a.json", "ior-sizes-b.json"}, KindPhase, 2},
	{"mdtest", KindAuto, []string{"mdtest-a.json", "mdtest-b.json"}, KindPhase, 2},
	{"time", KindTime, []string{"time-a.json", "time-b.json"}, KindTime, 4}, // write, read per run
}

func TestSelect(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Select(load(t, tc.files...), tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind != tc.want || len(c.Series) != tc.lines {
				t.Fatalf("got a %s chart of %d series, want %s of %d", c.Kind, len(c.Series), tc.want, tc.lines)
			}
			for _, s := range c.Series {
				if !strings.HasPrefix(s.Name, tc.files[0]) && !strings.HasPrefix(s.Name, tc.files[len(tc.files)-1]) {
					t.Errorf("series %q is not named after its file", s.Name)
				}
			}
		})
	}
}

// TestSelectFigures checks the figures behind two charts against the
// archives: IMB's t in microseconds against bytes without the 0-byte row,
// and mdtest's mean rate of the phases that ran.
func TestSelectFigures(t *testing.T) {
	as := load(t, "coll-a.json")
	c, err := Select(as, KindAuto)
	if err != nil {
		t.Fatal(err)
	}
	pp := &as[0].Result.Tables[0]
	if pp.Name != "PingPong np=2" {
		t.Fatalf("first table is %q", pp.Name)
	}
	got := c.Series[0].Points
	if len(got) != len(pp.Rows)-1 {
		t.Fatalf("%d points from %d rows, want every row but the 0-byte one", len(got), len(pp.Rows))
	}
	if got[0].X != 1 || got[0].Y != pp.Rows[1].Metrics[1]*1e6 {
		t.Errorf("first point %v, want (1, %g us)", got[0], pp.Rows[1].Metrics[1]*1e6)
	}

	m, err := Select(load(t, "mdtest-a.json"), KindAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Categories) != 8 || m.Categories[0] != "Directory creation" || m.Categories[7] != "File removal" {
		t.Errorf("categories %q, want mdtest's 8 phases that ran, in its order", m.Categories)
	}
	if p := m.Series[0].Points[0]; p.Y != 7741.855 {
		t.Errorf("Directory creation at %g ops/s, want the mean 7741.855", p.Y)
	}
}

func TestSelectErrors(t *testing.T) {
	noTables := report.New("ior")
	barrier := report.New("imb")
	barrier.Tables = []report.Table{{Name: "Barrier np=2", Columns: []report.Column{
		{Name: "#repetitions", Kind: report.KindMetric},
		{Name: "t_avg", Kind: report.KindMetric, Unit: "s"},
	}, Rows: []report.Row{{Metrics: []float64{10, 1e-6}}}}}
	wireup := report.New("wireup")
	for _, tc := range []struct {
		name     string
		archives []Archive
		kind     Kind
		want     string
	}{
		{"none", nil, KindAuto, "no archives"},
		{"mixed", append(load(t, "coll-a.json"), load(t, "mdtest-a.json")...), KindAuto,
			`coll-a.json is a "imb" archive and mdtest-a.json a "mdtest" one`},
		{"ior without results", []Archive{{"empty.json", noTables}}, KindAuto, "empty.json: no write or read bandwidth"},
		{"imb barrier only", []Archive{{"barrier.json", barrier}}, KindAuto, `barrier.json: no IMB table with a "#bytes" label`},
		{"no time series", load(t, "ior-one-a.json"), KindTime, "ior-one-a.json: no time-series table"},
		{"mdtest size", load(t, "mdtest-a.json"), KindSize, `no size chart for "mdtest" archives`},
		{"imb phase", load(t, "coll-a.json"), KindPhase, `no phase chart for "imb" archives`},
		{"wireup", []Archive{{"w.json", wireup}}, KindAuto, "w.json: no time-series table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Select(tc.archives, tc.kind)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q", err, tc.want)
			}
		})
	}
}

// TestWriteErrors: the writers refuse a chart they cannot draw.
func TestWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chart Chart
		want  string
	}{
		{"empty", Chart{}, "no points"},
		{"log zero", Chart{X: Axis{Scale: Log2}, Series: []Series{{Name: "a", Points: []Point{{0, 1}}}}}, "log axis"},
		{"not finite", Chart{Series: []Series{{Name: "a", Points: []Point{{1, 1 / zero()}}}}}, "not finite"},
		{"bad category", Chart{Categories: []string{"write"}, Series: []Series{{Name: "a", Points: []Point{{1, 1}}}}}, "category 1"},
	} {
		for wname, write := range map[string]func(io.Writer, *Chart) error{"png": WritePNG, "svg": WriteSVG, "terminal": WriteTerminal} {
			var b bytes.Buffer
			err := write(&b, &tc.chart)
			if err == nil || !strings.Contains(err.Error(), tc.want) || b.Len() > 0 {
				t.Errorf("%s %s: got %v and %d bytes, want %q and nothing written", tc.name, wname, err, b.Len(), tc.want)
			}
		}
	}
}

func zero() float64 { return 0 }

// drawn returns the chart of kind for the testdata archives files, and
// what write made of it.
func drawn(t *testing.T, files []string, kind Kind, write func(io.Writer, *Chart) error) (*Chart, *bytes.Buffer) {
	t.Helper()
	c, err := Select(load(t, files...), kind)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := write(&b, c); err != nil {
		t.Fatal(err)
	}
	return c, &b
}

func TestPNG(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, b := drawn(t, tc.files, tc.kind, WritePNG)
			img, err := png.Decode(b)
			if err != nil {
				t.Fatalf("the PNG does not decode: %v", err)
			}
			if got := img.Bounds(); got != image.Rect(0, 0, chartWidth(c), chartHeight) || got.Dx() < minWidth {
				t.Fatalf("image is %v, want %dx%d", got, chartWidth(c), chartHeight)
			}
			// Inside the plot area: the background, the grid, and every
			// series' own colour on enough pixels to be seen.
			counts := map[color.RGBA]int{}
			for y := areaTop + 1; y < areaBottom; y++ {
				for x := areaLeft + 2; x < areaRight; x++ {
					r, g, bl, a := img.At(x, y).RGBA()
					counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}]++
				}
			}
			if len(counts) < 2+len(c.Series) {
				t.Errorf("%d distinct colours in the plot area, want at least %d", len(counts), 2+len(c.Series))
			}
			if counts[white] == (areaBottom-areaTop-1)*(areaRight-areaLeft-2) {
				t.Fatal("the plot area is blank")
			}
			for i := range c.Series {
				if n := counts[seriesColor(i)]; n < 50 {
					t.Errorf("series %d (%s) has %d pixels in the plot area, want 50 or more", i, c.Series[i].Name, n)
				}
			}
		})
	}
}

func TestSVG(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, b := drawn(t, tc.files, tc.kind, WriteSVG)
			dec := xml.NewDecoder(b)
			series, texts := 0, []string{}
			inText := false
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("the SVG does not parse: %v", err)
				}
				switch e := tok.(type) {
				case xml.StartElement:
					inText = e.Name.Local == "text"
					for _, a := range e.Attr {
						if e.Name.Local == "path" && a.Name.Local == "class" && a.Value == "series" {
							series++
						}
					}
				case xml.CharData:
					if inText {
						texts = append(texts, string(e))
					}
				case xml.EndElement:
					inText = false
				}
			}
			if series != len(c.Series) {
				t.Errorf("%d series paths, want %d", series, len(c.Series))
			}
			all := strings.Join(texts, "\n")
			for _, want := range []string{c.Title, c.X.Title(), c.Y.Title(), c.Series[0].Name} {
				if !strings.Contains(all, want) {
					t.Errorf("no text %q in the SVG", want)
				}
			}
		})
	}
}

// TestTerminal: the terminal charts as testdata/TestTerminal/NAME.golden
// has them (-update rewrites them).
func TestTerminal(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			_, b := drawn(t, tc.files, tc.kind, WriteTerminal)
			golden := filepath.Join("testdata", "TestTerminal", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("terminal chart differs from %s:\n%s", golden, got)
			}
			for i, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if n := len([]rune(l)); n > 80 {
					t.Errorf("line %d is %d columns, want 80 at most: %q", i+1, n, l)
				}
			}
		})
	}
}

// TestSVGEscapes: a series named with XML's special characters, or with
// control characters, still makes an SVG that parses and shows the name.
func TestSVGEscapes(t *testing.T) {
	name := `a<b>&"c"` + "\x01\n.json"
	c := &Chart{Title: "t", Series: []Series{{Name: name, Points: []Point{{1, 1}, {2, 3}}}}}
	var b bytes.Buffer
	if err := WriteSVG(&b, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("the SVG does not parse: %v\n%s", err, b.String())
	}
	if !slices.Contains(doc.Texts, `a<b>&"c"??.json`) {
		t.Errorf("texts %q lack the series name", doc.Texts)
	}
}

// TestManySeries: names with control characters stay on their line in
// the terminal, and a legend longer than the image ends with a count.
func TestManySeries(t *testing.T) {
	c := &Chart{Title: "t", X: Axis{Label: "x"}, Y: Axis{Label: "y"}}
	for i := range 40 {
		c.Series = append(c.Series, Series{Name: fmt.Sprintf("run\n%d", i), Points: []Point{{1, float64(i + 1)}, {2, float64(i + 2)}}})
	}
	var term bytes.Buffer
	if err := WriteTerminal(&term, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "run?39\n") || strings.Contains(term.String(), "run\n") {
		t.Errorf("series names not kept on one line:\n%s", term.String())
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), ">... and 19 more<") {
		t.Errorf("the legend of 40 series does not end with a count of those left out")
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		s    span
		n    int
		want string
	}{
		{span{1, 4 << 20, Log2}, 9, "1 16 256 4K 64K 1M"}, // every 4th power: 23 are too many,
		{span{16 << 10, 4 << 20, Log2}, 9, "16K 32K 64K 128K 256K 512K 1M 2M 4M"},
		{span{0.3, 812, Log10}, 6, "0.1 1 10 100 1000"},
		{span{0, 1035, Linear}, 6, "0 250 500 750 1000 1250"},
		{span{0, 0.9, Linear}, 6, "0.0 0.2 0.4 0.6 0.8 1.0"}, // one number of decimals along an axis,
		{span{0, 1.1, Linear}, 6, "0.00 0.25 0.50 0.75 1.00 1.25"},
		{span{1e17, 1e17 + 16, Linear}, 6, "1e+17 1e+17"}, // steps below the figures' precision: the ends only (it looped)
	} {
		var got []string
		for _, tk := range tc.s.ticks(tc.n) {
			got = append(got, tk.label)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("ticks of %+v: got %q, want %q", tc.s, g, tc.want)
		}
	}
}

// FuzzPlot feeds archives through ReadJSON, Select and the writers: any
// archive that reads must chart or fail with an error, never panic.
func FuzzPlot(f *testing.F) {
	for _, tc := range charts {
		for _, name := range tc.files {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, string(tc.kind))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, kind string) {
		r, err := report.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		c, err := Select([]Archive{{"fuzz.json", r}}, Kind(kind))
		if err != nil {
			return
		}
		for _, write := range []func(io.Writer, *Chart) error{WriteTerminal, WriteSVG, WritePNG} {
			if err := write(io.Discard, c); err != nil {
				t.Fatalf("Select's chart does not draw: %v", err)
			}
		}
	})
}
