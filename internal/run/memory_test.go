package run

import (
	"encoding/binary"
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
)

// TestHostReading: every rank of a host gets the same figure, its ranks'
// largest reading, and a rank that could not read adds nothing.
func TestHostReading(t *testing.T) {
	type reading struct {
		bytes int64
		src   uint64
	}
	readings := []reading{{100, 1}, {900, 1}, {0, 0}, {500, 3}, {300, 1}}
	hosts := []string{"a", "b", "a", "a", "b"}
	all := make([]byte, 16*len(readings))
	for r, x := range readings {
		binary.LittleEndian.PutUint64(all[16*r:], uint64(x.bytes))
		binary.LittleEndian.PutUint64(all[16*r+8:], x.src)
	}
	want := map[string]hostmem.HostMemory{
		"a": {Bytes: 500, Source: "the memory cgroup's limit"},
		"b": {Bytes: 900, Source: "MemAvailable"},
	}
	for r := range hosts {
		m, ok := hostReading(all, hosts, r)
		if !ok || m != want[hosts[r]] {
			t.Errorf("rank %d: %+v, %v; want %+v", r, m, ok, want[hosts[r]])
		}
	}
	if _, ok := hostReading(all[:16*3], []string{"a", "b", "c"}, 2); ok {
		t.Errorf("host c with no reading: ok, want not ok")
	}
	if _, ok := hostReading(all, hosts, 7); ok {
		t.Errorf("rank outside the hosts: ok")
	}
}
