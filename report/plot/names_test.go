package plot

import (
	"slices"
	"testing"
)

func TestFileNames(t *testing.T) {
	for _, tc := range []struct {
		files, want []string
	}{
		{[]string{"/tmp/pa/coll.json"}, []string{"coll.json"}},
		{[]string{"runs/a.json", "runs/b.json"}, []string{"a.json", "b.json"}},
		{[]string{"x/run.json", "y/run.json"}, []string{"x/run.json", "y/run.json"}},
		{[]string{"/r/1/x/a.json", "/r/2/x/a.json"}, []string{"1/x/a.json", "2/x/a.json"}},
		{[]string{"a.json", "/tmp/b.json"}, []string{"a.json", "/tmp/b.json"}}, // nothing shared: as typed
		{[]string{"./d/a.json", "d/b.json"}, []string{"a.json", "b.json"}},
	} {
		got := fileNames(tc.files)
		if !slices.Equal(got, tc.want) {
			t.Errorf("fileNames(%q) = %q, want %q", tc.files, got, tc.want)
		}
	}
}

func TestHasWord(t *testing.T) {
	for _, tc := range []struct {
		s, word string
		want    bool
	}{
		{"pingpong.json", "pingpong", true},
		{"runs/rma_bw-2.json", "rma_bw", true},
		{"rma_bw.json", "bw", false},
		{"rma_pingpong.json", "pingpong", false},
		{"bwbw.json", "bw", false},
		{"x-bw.json", "bw", true},
		{"a.json", "", false},
	} {
		if got := hasWord(tc.s, tc.word); got != tc.want {
			t.Errorf("hasWord(%q, %q) = %v, want %v", tc.s, tc.word, got, tc.want)
		}
	}
}

// TestNameSeries: a legend keeps what tells series apart, leaves out
// what they all share (into the title when it is the file) and what the
// file's name says.
func TestNameSeries(t *testing.T) {
	f := func(file string, more ...part) []part { return append([]part{{filePart, file}}, more...) }
	for _, tc := range []struct {
		name  string
		parts [][]part
		want  []string
		title string
	}{
		{"one file, two accesses", [][]part{
			f("ior.json", part{"table", "series"}, labelPart("test", "0"), labelPart("access", "write"), labelPart("iter", "0")),
			f("ior.json", part{"table", "series"}, labelPart("test", "0"), labelPart("access", "read"), labelPart("iter", "0")),
		}, []string{"write", "read"}, "t: ior.json"},
		{"iterations", [][]part{
			f("ior.json", labelPart("access", "write"), labelPart("iter", "0")),
			f("ior.json", labelPart("access", "write"), labelPart("iter", "1")),
		}, []string{"iter 0", "iter 1"}, "t: ior.json"},
		{"one benchmark, two files", [][]part{
			f("a.json", part{benchPart, "PingPong"}, part{"np", "np=2"}),
			f("b.json", part{benchPart, "PingPong"}, part{"np", "np=2"}),
		}, []string{"a.json", "b.json"}, "t: PingPong"},
		{"one series", [][]part{f("a.json", part{benchPart, "pingpong"})}, []string{"a.json"}, "t"},
		{"file says the test", [][]part{
			f("pingpong.json", part{benchPart, "pingpong"}),
			f("rma_pingpong.json", part{benchPart, "rma_pingpong"}),
		}, []string{"pingpong.json", "rma_pingpong.json"}, "t"},
		{"a part some series lack", [][]part{
			f("pp.json", part{benchPart, "pingpong"}),
			f("coll.json", part{benchPart, "PingPong"}, part{"np", "np=2"}),
			f("coll.json", part{benchPart, "Allreduce"}, part{"np", "np=2"}),
		}, []string{"pp.json pingpong", "coll.json PingPong", "coll.json Allreduce"}, "t"},
	} {
		c := &Chart{Title: "t", Series: make([]Series, len(tc.parts))}
		nameSeries(c, tc.parts)
		var got []string
		for _, s := range c.Series {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, tc.want) || c.Title != tc.title {
			t.Errorf("%s: names %q, title %q; want %q, %q", tc.name, got, c.Title, tc.want, tc.title)
		}
	}
}
