package hostlist

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParse: --hosts values, Hydra's -hosts syntax.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Entry
		err  string
	}{
		{"a", []Entry{{"a", 1}}, ""},
		{"a:4,b:2,c", []Entry{{"a", 4}, {"b", 2}, {"c", 1}}, ""},
		{"node-1.cluster,10.0.0.2:8", []Entry{{"node-1.cluster", 1}, {"10.0.0.2", 8}}, ""},
		{"a:2,a:3,b", []Entry{{"a", 5}, {"b", 1}}, ""},       // consecutive: one entry, as Hydra's list
		{"a,b,a", []Entry{{"a", 1}, {"b", 1}, {"a", 1}}, ""}, // not consecutive: Place makes them one host
		{"ns_1:65536", []Entry{{"ns_1", 65536}}, ""},         // underscores, as network namespaces have
		{"a,,b", nil, "host 2 is empty: want HOST or HOST:N between the commas"},
		{"a,", nil, "host 2 is empty"},
		{"", nil, "host 1 is empty"},
		{"a:0", nil, `"a:0": slots "0": want a whole number from 1 to 65536`},
		{"a:65537", nil, `"a:65537": slots "65537": want a whole number from 1 to 65536`},
		{"a:x", nil, `"a:x": slots "x"`},
		{"a:", nil, `"a:": slots ""`},
		{"a:+2", nil, `"a:+2": slots "+2"`},
		{"a:-2", nil, `"a:-2": slots "-2"`},
		{"a:2:3", nil, `"a:2:3": slots "2:3"`},
		{":2", nil, `":2": want a host name`},
		{"-oProxyCommand=x", nil, `"-oProxyCommand=x": want a host name`},
		{".a", nil, `".a": want a host name`},
		{"a b", nil, `"a b": want a host name`},
		{"user@a", nil, `"user@a": want a host name`},
		{strings.Repeat("a", 254), nil, "at most 253 characters"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestParseHostfile: Hydra's and Open MPI's hostfile lines, comments and
// the errors, each naming the file and line.
func TestParseHostfile(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Entry
		err      string
	}{
		{"hydra", "a\nb:4\nc:2\n", []Entry{{"a", 1}, {"b", 4}, {"c", 2}}, ""},
		{"open mpi", "node01 slots=10\nnode13  slots=5\n\nnode15\n", []Entry{{"node01", 10}, {"node13", 5}, {"node15", 1}}, ""},
		{"comments", "# the rack\n  a slots=2 # two GPUs\n\t# indented\nb#c\n", []Entry{{"a", 2}, {"b", 1}}, ""},
		{"spaces around =", "a slots = 3\nb slots= 2 max_slots =4\n", []Entry{{"a", 3}, {"b", 2}}, ""},
		{"synonyms", "a count=2\nb cpu=3\nc slots=1 max-slots=8\n", []Entry{{"a", 2}, {"b", 3}, {"c", 1}}, ""},
		{"CRLF", "a:2\r\nb\r\n", []Entry{{"a", 2}, {"b", 1}}, ""},
		{"no final newline", "a\nb", []Entry{{"a", 1}, {"b", 1}}, ""},
		{"repeated lines add", "a\na\na slots=2\nb\n", []Entry{{"a", 4}, {"b", 1}}, ""},
		{"empty", "", nil, "f: names no host (only blank lines and comments)"},
		{"only comments", "# nothing\n\n   \n", nil, "f: names no host"},
		{"bad slots", "a\nb slots=0\n", nil, `f:2: slots "0": want a whole number from 1 to 65536`},
		{"bad :N", "a:x\n", nil, `f:1: "a:x": slots "x"`},
		{"slots twice", "a:2 slots=3\n", nil, `f:1: "slots=3": host "a" has its slots already`},
		{"slots=twice", "a slots=2 slots=3\n", nil, `f:1: "slots=3": host "a" has its slots already`},
		{"max_slots twice", "a max_slots=2 max_slots=3\n", nil, `host "a" has its max_slots already`},
		{"bad max_slots", "a max_slots=0\n", nil, `f:1: max_slots "0": want a whole number`},
		{"stray word", "a b\n", nil, `f:1: "b" after host "a": want slots=N or max_slots=N`},
		{"unsupported key", "a port=22\n", nil, `f:1: "port=22": not supported`},
		{"user key", "a user=me\n", nil, `f:1: "user=me": not supported`},
		{"bad name", "\n\n^a\n", nil, `f:3: "^a": want a host name`},
		{"NUL", "a\x00b\n", nil, `f:1: "a\x00b": want a host name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseHostfile("f", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseHostfile(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ParseHostfile(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestReadHostfile: what cannot be a hostfile is refused naming the path.
func TestReadHostfile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "nodes")
	empty := filepath.Join(dir, "empty")
	big := filepath.Join(dir, "big")
	for path, data := range map[string]string{ok: "a:2\nb\n", empty: "", big: strings.Repeat("a\n", MaxHostfileSize/2+1)} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ReadHostfile(ok); err != nil || !slices.Equal(got, []Entry{{"a", 2}, {"b", 1}}) {
		t.Errorf("ReadHostfile(%s) = %v, %v", ok, got, err)
	}
	for path, want := range map[string]string{
		"":                           `"": want a file`,
		filepath.Join(dir, "absent"): "absent: cannot be read: no such file or directory",
		dir:                          dir + ": is a directory, want a file",
		empty:                        "empty: names no host",
		big:                          "big: larger than 4 MiB",
	} {
		if got, err := ReadHostfile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadHostfile(%q) = %v, %v; want error %q", path, got, err, want)
		}
	}
}

// TestPlace: Hydra's placement, by hand.
func TestPlace(t *testing.T) {
	type hosts = map[string][]int
	for _, tc := range []struct {
		name    string
		entries []Entry
		n, ppn  int
		want    []Host
	}{
		{"block over slots", []Entry{{"a", 2}, {"b", 2}}, 4, 0,
			[]Host{{"a", []int{0, 1}}, {"b", []int{2, 3}}}},
		{"one slot each: round robin", []Entry{{"a", 1}, {"b", 1}}, 4, 0,
			[]Host{{"a", []int{0, 2}}, {"b", []int{1, 3}}}},
		{"more ranks than slots cycle", []Entry{{"a", 2}, {"b", 1}}, 7, 0,
			[]Host{{"a", []int{0, 1, 3, 4, 6}}, {"b", []int{2, 5}}}},
		{"fewer ranks than slots: b unused", []Entry{{"a", 4}, {"b", 4}}, 3, 0,
			[]Host{{"a", []int{0, 1, 2}}}},
		{"--ppn overrides the slots", []Entry{{"a", 8}, {"b", 1}}, 6, 2,
			[]Host{{"a", []int{0, 1, 4, 5}}, {"b", []int{2, 3}}}},
		{"--ppn 1: round robin", []Entry{{"a", 4}, {"b", 4}, {"c", 4}}, 5, 1,
			[]Host{{"a", []int{0, 3}}, {"b", []int{1, 4}}, {"c", []int{2}}}},
		{"a host listed twice is one host", []Entry{{"a", 1}, {"b", 2}, {"a", 1}}, 4, 0,
			[]Host{{"a", []int{0, 3}}, {"b", []int{1, 2}}}},
		{"last turn cut short", []Entry{{"a", 3}, {"b", 3}}, 5, 0,
			[]Host{{"a", []int{0, 1, 2}}, {"b", []int{3, 4}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Place(tc.entries, tc.n, tc.ppn)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(l.Hosts, tc.want, func(a, b Host) bool { return a.Name == b.Name && slices.Equal(a.Ranks, b.Ranks) }) {
				t.Errorf("Place(%v, %d, %d) = %v, want %v", tc.entries, tc.n, tc.ppn, l.Hosts, tc.want)
			}
			if l.N() != tc.n {
				t.Errorf("N() = %d, want %d", l.N(), tc.n)
			}
		})
	}
	for _, tc := range []struct {
		entries []Entry
		n, ppn  int
		err     string
	}{
		{nil, 1, 0, "no hosts"},
		{[]Entry{{"a", 1}}, 0, 0, "0 ranks: want at least 1"},
		{[]Entry{{"a", 1}}, 1, -1, "ppn -1: want a whole number from 1 to 65536"},
		{[]Entry{{"a", 1}}, 1, 65537, "ppn 65537"},
		{[]Entry{{"a", 0}}, 1, 0, `host "a": 0 slots: want at least 1`},
	} {
		if l, err := Place(tc.entries, tc.n, tc.ppn); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Place(%v, %d, %d) = %v, %v; want error %q", tc.entries, tc.n, tc.ppn, l, err, tc.err)
		}
	}
}

// TestSlots: the job's size when -n is left out.
func TestSlots(t *testing.T) {
	entries := []Entry{{"a", 4}, {"b", 2}, {"c", 1}}
	if got := Slots(entries, 0); got != 7 {
		t.Errorf("Slots(%v, 0) = %d, want 7", entries, got)
	}
	if got := Slots(entries, 3); got != 9 {
		t.Errorf("Slots(%v, 3) = %d, want 9", entries, got)
	}
}

// TestIsLocal: the names of this machine.
func TestIsLocal(t *testing.T) {
	for _, tc := range []struct {
		name, hostname string
		want           bool
	}{
		{"localhost", "vm", true},
		{"127.0.0.1", "vm", true},
		{"127.0.1.1", "vm", true},
		{"vm", "vm", true},
		{"VM", "vm", true},
		{"vm", "vm.example.org", true},
		{"vm.example.org", "vm", true},
		{"vm.example.org", "vm.example.org", true},
		{"vm.other.org", "vm.example.org", false},
		{"vm2", "vm", false},
		{"10.0.0.1", "vm", false},
		{"vm", "", false},
	} {
		if got := IsLocal(tc.name, tc.hostname); got != tc.want {
			t.Errorf("IsLocal(%q, %q) = %v, want %v", tc.name, tc.hostname, got, tc.want)
		}
	}
	l := Layout{Hosts: []Host{{"localhost", []int{0}}, {"vm", []int{1}}}}
	if !l.Local("vm") || l.Local("other") {
		t.Errorf("%v.Local: want true on vm only", l)
	}
}
