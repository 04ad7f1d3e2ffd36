package hostlist

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mpichNodeIDs returns each of n ranks' node id from a PMI_process_mapping
// value as MPICH 4 reads it: MPIR_NODEMAP_parse_mapping's grammar
// ("(vector,(a,b,c),...)", blanks allowed around the parts) and
// MPIR_NODEMAP_populate_ids_from_mapping's walk, which repeats the
// triples while ranks remain, restarting at the first triple whose node
// is 0 once one has been seen (MPICH's "found_wrap").
func mpichNodeIDs(mapping string, n int) ([]int, error) {
	s := strings.TrimLeft(mapping, " \t")
	rest, ok := strings.CutPrefix(s, "(")
	if !ok {
		return nil, errors.New("no '('")
	}
	rest = strings.TrimLeft(rest, " \t")
	rest, ok = strings.CutPrefix(rest, "vector")
	if !ok {
		return nil, errors.New("not a vector")
	}
	type block struct{ start, count, size int }
	var blocks []block
	for range strings.Count(rest, "(") {
		var b block
		fields := []*int{&b.start, &b.count, &b.size}
		for k, f := range fields {
			rest = strings.TrimLeft(rest, " \t")
			sep := ","
			if k == 0 {
				rest, ok = strings.CutPrefix(rest, ",")
				if !ok {
					return nil, errors.New("no ',' before a triple")
				}
				rest = strings.TrimLeft(rest, " \t")
				sep = "("
			}
			if rest, ok = strings.CutPrefix(rest, sep); !ok {
				return nil, fmt.Errorf("no %q", sep)
			}
			rest = strings.TrimLeft(rest, " \t")
			end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
			if end <= 0 {
				return nil, errors.New("no number")
			}
			v, err := strconv.Atoi(rest[:end])
			if err != nil {
				return nil, err
			}
			*f, rest = v, rest[end:]
		}
		if rest, ok = strings.CutPrefix(rest, ")"); !ok {
			return nil, errors.New("no ')' after a triple")
		}
		blocks = append(blocks, b)
	}
	if strings.TrimLeft(rest, " \t") != ")" {
		return nil, fmt.Errorf("%q after the triples", rest)
	}
	perPass := 0
	for _, b := range blocks {
		perPass += b.count * b.size
	}
	if perPass == 0 {
		return nil, errors.New("the triples hold no rank") // MPICH would loop for ever
	}
	out := make([]int, 0, n)
	foundWrap := false
	for len(out) < n {
		i := 0
		for foundWrap && blocks[i].start != 0 {
			i++
		}
		for ; i < len(blocks) && len(out) < n; i++ {
			b := blocks[i]
			if b.start == 0 {
				foundWrap = true
			}
			for node := 0; node < b.count && len(out) < n; node++ {
				for p := 0; p < b.size && len(out) < n; p++ {
					out = append(out, b.start+node)
				}
			}
		}
	}
	return out, nil
}

// TestProcessMapping: hand-computed layouts give MPICH's block forms and
// the irregular ones their triples.
func TestProcessMapping(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []Entry
		n, ppn  int
		want    string
	}{
		{"one host", []Entry{{"a", 4}}, 4, 0, "(vector,(0,1,4))"},
		{"2 hosts x 4, block", []Entry{{"a", 4}, {"b", 4}}, 8, 0, "(vector,(0,2,4))"},
		{"3 hosts, --ppn 2", []Entry{{"a", 1}, {"b", 1}, {"c", 1}}, 6, 2, "(vector,(0,3,2))"},
		{"round robin", []Entry{{"a", 4}, {"b", 4}}, 8, 1, "(vector,(0,2,1))"},
		{"one slot each, cycling", []Entry{{"a", 1}, {"b", 1}, {"c", 1}}, 7, 0, "(vector,(0,3,1))"},
		{"cycling over slots", []Entry{{"a", 2}, {"b", 2}}, 6, 0, "(vector,(0,2,2))"},
		{"fewer ranks than slots", []Entry{{"a", 4}, {"b", 4}}, 6, 0, "(vector,(0,1,4),(1,1,2))"},
		{"mixed slots", []Entry{{"a", 2}, {"b", 2}, {"c", 4}, {"d", 4}}, 12, 0, "(vector,(0,2,2),(2,2,4))"},
		{"a host listed twice", []Entry{{"a", 1}, {"b", 1}, {"a", 1}}, 3, 0, "(vector,(0,2,1))"},
		{"a host listed twice, twice over", []Entry{{"a", 1}, {"b", 1}, {"a", 1}}, 6, 0, "(vector,(0,2,1),(0,1,1))"},
		{"one host, cycling", []Entry{{"a", 2}}, 5, 0, "(vector,(0,1,5))"},
		{"a host listed twice, cycling", []Entry{{"a", 2}, {"b", 1}, {"a", 1}}, 8, 0, "(vector,(0,1,2),(1,1,1),(0,1,1))"},
		{"one rank", []Entry{{"a", 1}, {"b", 1}}, 1, 0, "(vector,(0,1,1))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Place(tc.entries, tc.n, tc.ppn)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.ProcessMapping(); got != tc.want {
				t.Errorf("ProcessMapping() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestProcessMappingMPICH: for layouts of random hosts, slots, sizes and
// --ppn, MPICH's reading of the mapping gives each rank the node of its
// host: the same node for ranks on one host, different ones across hosts.
func TestProcessMappingMPICH(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	for i := range 2000 {
		entries := make([]Entry, 1+rng.IntN(8))
		for k := range entries {
			entries[k] = Entry{Name: "h" + strconv.Itoa(rng.IntN(6)), Slots: 1 + rng.IntN(5)}
		}
		ppn := 0
		if rng.IntN(3) == 0 {
			ppn = 1 + rng.IntN(4)
		}
		n := 1 + rng.IntN(64)
		checkMapping(t, fmt.Sprintf("case %d: %v -n %d --ppn %d", i, entries, n, ppn), entries, n, ppn)
	}
}

// checkMapping places n ranks on entries and checks that MPICH's reading
// of the layout's mapping puts each rank on its host.
func checkMapping(t *testing.T, what string, entries []Entry, n, ppn int) {
	t.Helper()
	l, err := Place(entries, n, ppn)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	m := l.ProcessMapping()
	got, err := mpichNodeIDs(m, n)
	if err != nil {
		t.Fatalf("%s: MPICH cannot read %q: %v", what, m, err)
	}
	if want := l.HostOf(); !slices.Equal(got, want) {
		t.Fatalf("%s: MPICH reads %q as nodes %v, want %v", what, m, got, want)
	}
}

// TestPeriod: the smallest repeating prefix, the last repetition possibly
// cut short.
func TestPeriod(t *testing.T) {
	for _, tc := range []struct {
		s    []int
		want int
	}{
		{[]int{0}, 1},
		{[]int{0, 0, 0}, 1},
		{[]int{0, 1, 0, 1}, 2},
		{[]int{0, 1, 0}, 2},
		{[]int{0, 0, 1, 1, 0}, 4},
		{[]int{0, 1, 0, 0, 1, 0}, 3},
		{[]int{0, 0, 0, 1}, 4},
	} {
		if got := period(tc.s); got != tc.want {
			t.Errorf("period(%v) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
