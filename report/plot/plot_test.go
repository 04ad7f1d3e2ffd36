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

// charts are the archive sets every writer test draws, one or more per
// chart the package doc lists, and the legend each has.
var charts = []struct {
	name   string
	kind   Kind
	metric Metric
	files  []string
	want   Kind     // the chart Select picks
	names  []string // its series
	title  string
}{
	{"imb", KindAuto, "", []string{"coll-a.json", "coll-b.json"}, KindSize,
		[]string{"coll-a.json PingPong", "coll-a.json Allreduce", "coll-b.json PingPong", "coll-b.json Allreduce"}, "latency against message size"},
	{"imb-one", KindAuto, "", []string{"coll-a.json"}, KindSize,
		[]string{"PingPong", "Allreduce"}, "latency against message size: coll-a.json"},
	{"imb-bandwidth", KindSize, MetricBandwidth, []string{"coll-a.json", "coll-b.json"}, KindSize,
		[]string{"coll-a.json", "coll-b.json"}, "bandwidth against message size: PingPong"},
	{"fabric", KindAuto, "", []string{"fabric-pingpong.json", "fabric-rma_pingpong.json"}, KindSize,
		[]string{"fabric-pingpong.json", "fabric-rma_pingpong.json"}, "latency against message size"},
	{"fabric-bw", KindAuto, "", []string{"fabric-bw.json"}, KindSize,
		[]string{"fabric-bw.json"}, "bandwidth against message size"},
	{"fabric-coll", KindSize, MetricLatency, []string{"fabric-pingpong.json", "fabric-bw.json", "coll-a.json"}, KindSize,
		[]string{"fabric-pingpong.json", "fabric-bw.json", "coll-a.json PingPong", "coll-a.json Allreduce"}, "latency against message size"},
	{"ior-sizes", KindAuto, "", []string{"ior-sizes-a.json", "ior-sizes-b.json"}, KindSize,
		[]string{"ior-sizes-a.json write", "ior-sizes-a.json read", "ior-sizes-b.json write", "ior-sizes-b.json read"}, "bandwidth against transfer size"},
	{"ior-phase", KindAuto, "", []string{"ior-one-a.json", "ior-one-b.json"}, KindPhase,
		[]string{"ior-one-a.json", "ior-one-b.json"}, "bandwidth per phase"},
	{"ior-sizes-phase", KindPhase, "", []string{"ior-sizes-a.json", "ior-sizes-b.json"}, KindPhase,
		[]string{"ior-sizes-a.json", "ior-sizes-b.json"}, "bandwidth per phase"},
	{"mdtest", KindAuto, "", []string{"mdtest-a.json", "mdtest-b.json"}, KindPhase,
		[]string{"mdtest-a.json", "mdtest-b.json"}, "rate per phase"},
	{"wireup", KindAuto, "", []string{"wireup-a.json", "wireup-b.json"}, KindPhase,
		[]string{"wireup-a.json", "wireup-b.json"}, "time per phase, mean over the ranks"},
	{"time", KindTime, "", []string{"time-a.json", "time-b.json"}, KindTime,
		[]string{"time-a.json write", "time-a.json read", "time-b.json write", "time-b.json read"}, "throughput over time"},
	{"time-tail", KindTime, "", []string{"time-tail.json"}, KindTime,
		[]string{"write", "read"}, "throughput over time: time-tail.json"},
}

func TestSelect(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Select(load(t, tc.files...), Options{Kind: tc.kind, Metric: tc.metric})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range c.Series {
				names = append(names, s.Name)
			}
			if c.Kind != tc.want || !slices.Equal(names, tc.names) || !strings.HasPrefix(c.Title, tc.title) {
				t.Fatalf("got a %s chart %q of series %q, want %s %q of %q", c.Kind, c.Title, names, tc.want, tc.title, tc.names)
			}
		})
	}
}

// TestSelectFigures checks the figures behind two charts against the
// archives: IMB's t in microseconds against bytes without the 0-byte row,
// and mdtest's mean rate of the phases that ran.
func TestSelectFigures(t *testing.T) {
	as := load(t, "coll-a.json")
	c, err := Select(as, Options{})
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

	m, err := Select(load(t, "mdtest-a.json"), Options{})
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
		{"imb barrier only", []Archive{{"barrier.json", barrier}}, KindAuto, `barrier.json: no table of latency against message size (a "bytes" or "#bytes" label column`},
		{"no time series", load(t, "ior-one-a.json"), KindTime, "ior-one-a.json: no time-series table"},
		{"mdtest size", load(t, "mdtest-a.json"), KindSize, `no size chart for "mdtest" archives`},
		{"imb phase", load(t, "coll-a.json"), KindPhase, `no phase chart for "imb" archives`},
		{"wireup", []Archive{{"w.json", wireup}}, KindAuto, `w.json: no phase with a mean time in seconds in its "phases" table`},
		{"wireup time", []Archive{{"w.json", wireup}}, KindTime, "w.json: no time-series table"},
		{"allpairs", load(t, "fabric-allpairs.json"), KindAuto, "fabric-allpairs.json: fabric allpairs holds matrices of host pairs"},
		{"allpairs size", load(t, "fabric-allpairs.json"), KindSize, "plot draws size charts of coll and fabric pingpong"},
		{"fabric phase", load(t, "fabric-pingpong.json"), KindPhase, `no phase chart for "fabric-pingpong" archives`},
		{"fabric and ior", load(t, "fabric-pingpong.json", "ior-one-a.json"), KindAuto, "plot one benchmark at a time"},
		{"imb no bandwidth", []Archive{load(t, "coll-a.json")[0], {"barrier.json", barrier}}, KindSize, "barrier.json: no table of latency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Select(tc.archives, Options{Kind: tc.kind})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q", err, tc.want)
			}
		})
	}
}

// TestSelectMetric: a metric that is not one, or one given for a chart
// that has no choice of figure, is refused in one line.
func TestSelectMetric(t *testing.T) {
	for _, tc := range []struct {
		files []string
		o     Options
		want  string
	}{
		{[]string{"mdtest-a.json"}, Options{Metric: MetricLatency},
			`plot: --metric latency: only size charts of coll and fabric archives choose their figure, not a phase chart of "mdtest" archives (mdtest-a.json)`},
		{[]string{"ior-sizes-a.json"}, Options{Metric: MetricBandwidth}, `not a size chart of "ior" archives`},
		{[]string{"coll-a.json"}, Options{Kind: KindTime, Metric: MetricBandwidth}, `not a time chart of "imb" archives`},
		{[]string{"coll-a.json"}, Options{Metric: "speed"}, `plot: metric "speed": want one of auto, latency, bandwidth`},
	} {
		_, err := Select(load(t, tc.files...), tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %+v: got %v, want one line with %q", tc.files, tc.o, err, tc.want)
		}
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

// drawn returns the chart o asks for of the testdata archives files, and
// what write made of it.
func drawn(t *testing.T, files []string, o Options, write func(io.Writer, *Chart) error) (*Chart, *bytes.Buffer) {
	t.Helper()
	c, err := Select(load(t, files...), o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := write(&b, c); err != nil {
		t.Fatal(err)
	}
	return c, &b
}

// TestPNG looks at each chart's picture: the image's size, the axes as
// dark lines along the plot area's left and bottom edges, a legend
// swatch in each series' colour with its name's dark pixels beside it,
// and each series' colour on enough pixels of the plot area to be seen.
func TestPNG(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, b := drawn(t, tc.files, Options{Kind: tc.kind, Metric: tc.metric}, WritePNG)
			img, err := png.Decode(b)
			if err != nil {
				t.Fatalf("the PNG does not decode: %v", err)
			}
			l := layoutOf(c)
			if got := img.Bounds(); got != image.Rect(0, 0, l.width, chartHeight) || got.Dx() < 800 || got.Dx() > 2000 {
				t.Fatalf("image is %v, want %dx%d, 800 to 2000 wide", got, l.width, chartHeight)
			}
			rgba := func(x, y int) color.RGBA {
				r, g, bl, a := img.At(x, y).RGBA()
				return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}
			}
			dark := func(x, y int) bool { p := rgba(x, y); return int(p.R)+int(p.G)+int(p.B) < 3*64 }
			right := int(l.right)
			if n := countPx(areaTop, areaBottom+1, areaLeft, areaLeft+1, dark); n < (areaBottom-areaTop)*9/10 {
				t.Errorf("y axis: %d dark pixels along x=%d, want most of %d", n, areaLeft, areaBottom-areaTop)
			}
			if n := countPx(areaBottom, areaBottom+1, areaLeft, right, dark); n < (right-areaLeft)*9/10 {
				t.Errorf("x axis: %d dark pixels along y=%d, want most of %d", n, areaBottom, right-areaLeft)
			}
			// Tick labels: dark pixels left of the y axis and under the x axis.
			if n := countPx(areaTop, areaBottom, 0, areaLeft-6, dark); n < 40 {
				t.Errorf("y tick labels: %d dark pixels left of the axis", n)
			}
			if n := countPx(areaBottom+8, areaBottom+30, areaLeft, right, dark); n < 40 {
				t.Errorf("x tick labels: %d dark pixels under the axis", n)
			}
			for i := range c.Series {
				if i >= (chartHeight-areaTop-20)/20-1 {
					break // the legend's count of the rest
				}
				y := areaTop + 8 + 20*i
				is := func(x, yy int) bool { return rgba(x, yy) == seriesColor(i) }
				if n := countPx(y-5, y+3, int(l.legend)+1, int(l.legend)+13, is); n < 12*8*9/10 {
					t.Errorf("legend: series %d's swatch has %d pixels of its colour", i, n)
				}
				if n := countPx(y-8, y+5, int(l.legend)+20, l.width, dark); n < 3*len(c.Series[i].Name) {
					t.Errorf("legend: %d dark pixels of series %d's name %q", n, i, c.Series[i].Name)
				}
				if n := countPx(areaTop+1, areaBottom, areaLeft+2, right, is); n < 50 {
					t.Errorf("series %d (%s) has %d pixels in the plot area, want 50 or more", i, c.Series[i].Name, n)
				}
			}
		})
	}
}

// countPx counts the pixels (x, y) in [x0, x1) x [y0, y1) where f holds.
func countPx(y0, y1, x0, x1 int, f func(x, y int) bool) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if f(x, y) {
				n++
			}
		}
	}
	return n
}

func TestSVG(t *testing.T) {
	for _, tc := range charts {
		t.Run(tc.name, func(t *testing.T) {
			c, b := drawn(t, tc.files, Options{Kind: tc.kind, Metric: tc.metric}, WriteSVG)
			axes := fmt.Sprintf("M%s %s L%s %s L%s %s", fmtPx(areaLeft), fmtPx(areaTop), fmtPx(areaLeft), fmtPx(areaBottom),
				fmtPx(layoutOf(c).right), fmtPx(areaBottom))
			if !strings.Contains(b.String(), `<path d="`+axes+`" fill="none" stroke="#000000"`) {
				t.Errorf("no axes (%s) in the SVG", axes)
			}
			for i := range c.Series {
				swatch := fmt.Sprintf(`<rect x="%s" y="%s" width="14.0" height="10.0" fill="%s"/>`,
					fmtPx(layoutOf(c).legend), fmtPx(float64(areaTop+8+20*i-6)), hexColor(seriesColor(i)))
				if !strings.Contains(b.String(), swatch) {
					t.Errorf("no legend swatch %s for series %d", swatch, i)
				}
			}
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
			_, b := drawn(t, tc.files, Options{Kind: tc.kind, Metric: tc.metric}, WriteTerminal)
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

// TestTicks: the labels of each scale, minor ticks as "|".
func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		s    span
		n    int
		want string
	}{
		{span{1, 4 << 20, Log2}, 9, "1 B | | | 16 B | | | 256 B | | | 4 KiB | | | 64 KiB | | | 1 MiB | |"}, // every 4th power: 23 are too many,
		{span{1, 1 << 20, Log2}, 12, "1 B | 4 B | 16 B | 64 B | 256 B | 1 KiB | 4 KiB | 16 KiB | 64 KiB | 256 KiB | 1 MiB"},
		{span{16 << 10, 4 << 20, Log2}, 9, "16 KiB 32 KiB 64 KiB 128 KiB 256 KiB 512 KiB 1 MiB 2 MiB 4 MiB"},
		{span{3 << 10, 5 << 10, Log2}, 9, "2 KiB 4 KiB 8 KiB"},
		// Log 10: 1, 2 and 5 in each decade where there is room, else
		// every decade with minor ticks at its multiples, else every
		// k-th decade.
		{span{0.3, 812, Log10}, 20, "0.1 0.2 | | 0.5 | | | | 1 2 | | 5 | | | | 10 20 | | 50 | | | | 100 200 | | 500 | | | | 1000"},
		{span{0.3, 812, Log10}, 6, "0.1 | | | | | | | | 1 | | | | | | | | 10 | | | | | | | | 100 | | | | | | | | 1000"},
		{span{1e-7, 1e5, Log10}, 6, "1e-07 | | | 0.001 | | | 10 | | | 100k"},
		{span{20e3, 3e6, Log10}, 20, "10k 20k | | 50k | | | | 100k 200k | | 500k | | | | 1M 2M | | 5M | | | | 10M"},
		{span{0, 1035, Linear}, 6, "0 250 500 750 1000 1250"},
		{span{0, 0.9, Linear}, 6, "0.0 0.2 0.4 0.6 0.8 1.0"}, // one number of decimals along an axis,
		{span{0, 1.1, Linear}, 6, "0.00 0.25 0.50 0.75 1.00 1.25"},
		{span{1e17, 1e17 + 16, Linear}, 6, "1e+17 1e+17"}, // steps below the figures' precision: the ends only (it looped)
	} {
		var got []string
		for _, tk := range tc.s.ticks(tc.n) {
			if tk.minor() {
				got = append(got, "|")
			} else {
				got = append(got, tk.label)
			}
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
		c, err := Select([]Archive{{"fuzz.json", r}}, Options{Kind: Kind(kind)})
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
