package hostlist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkEntries checks what a parser returned: valid names, slots of at
// least 1, no two consecutive entries of one host, and the list written
// back as --hosts reads the same.
func checkEntries(t *testing.T, in string, entries []Entry) {
	t.Helper()
	items := make([]string, len(entries))
	for i, e := range entries {
		if checkName(e.Name) != nil || e.Slots < 1 || i > 0 && entries[i-1].Name == e.Name {
			t.Fatalf("%q: bad entries %v", in, entries)
		}
		items[i] = e.Name + ":" + strconv.Itoa(min(e.Slots, MaxSlots))
		entries[i].Slots = min(e.Slots, MaxSlots)
	}
	again, err := Parse(strings.Join(items, ","))
	if err != nil || !slices.Equal(again, entries) {
		t.Fatalf("%q: %v written back reads %v, %v", in, entries, again, err)
	}
}

// FuzzParse: any --hosts value is refused in one line or read into valid
// entries.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a", "a:4,b:2,c", "a,,b", "a:0", "a:2,a:3", "10.0.0.1:8,h-2", "-x", "a:+1", "a:2:3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := Parse(in)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error of several lines: %q", in, err)
			}
			return
		}
		checkEntries(t, in, entries)
	})
}

// FuzzParseHostfile: any hostfile is refused in one line naming the file
// (and the line, past the first) or read into valid entries.
func FuzzParseHostfile(f *testing.F) {
	for _, s := range []string{
		"a\nb:4\n", "node01 slots=10\n# c\n\nnode15 max_slots=3 # x\n", "a slots = 2\r\n", "a:2 slots=3\n",
		"a port=22\n", "a b\n", "", "#\n", "a\na\n", "x count=2 cpu=3\n", "a max-slots=1 max_slots=2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseHostfile("f", data)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "f:") {
				t.Fatalf("%q: error %q: want one line starting with the file's name", data, msg)
			}
			return
		}
		checkEntries(t, string(data), entries)
	})
}

// FuzzPlaceMapping: for any host list, size and --ppn, Place places every
// rank once, and MPICH's reading of the layout's PMI_process_mapping puts
// each rank on its host.
func FuzzPlaceMapping(f *testing.F) {
	f.Add([]byte{2, 2}, uint16(4), uint8(0))
	f.Add([]byte{1, 1, 1}, uint16(7), uint8(0))
	f.Add([]byte{4, 4}, uint16(6), uint8(1))
	f.Add([]byte{0x12, 0x01, 0x11}, uint16(9), uint8(0))
	f.Fuzz(func(t *testing.T, hosts []byte, n uint16, ppn uint8) {
		if len(hosts) == 0 || len(hosts) > 64 || n == 0 || n > 4096 {
			return
		}
		// Each byte an entry: its host (high nibble, so hosts repeat) and
		// slots (low nibble, plus 1).
		entries := make([]Entry, len(hosts))
		for i, b := range hosts {
			entries[i] = Entry{Name: "h" + strconv.Itoa(int(b>>4)), Slots: int(b&15) + 1}
		}
		l, err := Place(entries, int(n), int(ppn%9))
		if err != nil {
			t.Fatal(err)
		}
		for h, host := range l.Hosts {
			if !slices.IsSorted(host.Ranks) || len(host.Ranks) == 0 || h > 0 && host.Ranks[0] < l.Hosts[h-1].Ranks[0] {
				t.Fatalf("%v: host %d: ranks %v", entries, h, host.Ranks)
			}
		}
		if slices.Contains(l.HostOf(), -1) || l.N() != int(n) {
			t.Fatalf("%v -n %d: layout %v does not place every rank once", entries, n, l.Hosts)
		}
		checkMapping(t, fmt.Sprintf("%v -n %d --ppn %d", entries, n, ppn%9), entries, int(n), int(ppn%9))
	})
}
