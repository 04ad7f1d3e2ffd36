package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// fileSize returns path's length.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestTornBatch puts on a log of n records what a kill leaves of a batch
// append (the removal of d0 and the punch of oid 5, one frame) at each
// step of putMapped, with room reserved after it: recovery cuts every
// partial frame as a torn tail, applies the batch only when it is whole,
// and leaves the file ending at the log's end.
func TestTornBatch(t *testing.T) {
	const n = 5
	frame := appendFrame(nil, record{op: opRemove, oid: object.OID{Lo: 0}, dkey: "d0"}, record{op: opPunch, oid: object.OID{Lo: 5}})
	inverted := append([]byte{}, frame[:frameHeader]...)
	binary.LittleEndian.PutUint32(inverted[4:], ^binary.LittleEndian.Uint32(frame[4:]))
	payload := frame[frameHeader:]
	for _, tc := range []struct {
		name    string
		tail    []byte
		applied bool
	}{
		{"before the header", nil, false},
		{"header stored", inverted, false},
		{"half the payload", append(append([]byte{}, inverted...), payload[:len(payload)/2]...), false},
		{"the payload's end only", append(append(append([]byte{}, inverted...), make([]byte, len(payload)/2)...), payload[len(payload)/2:]...), false},
		{"all but the checksum", append(append([]byte{}, inverted...), payload...), false},
		{"whole", frame, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.log")
			_, size := writeLog(t, path, n)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = append(append(b, tc.tail...), make([]byte, 1<<16)...) // the room reserved
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := openKV(path, false, true)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			want := n
			if tc.applied {
				want = n - 1
			}
			if got := count(t, s, n); got != want {
				t.Errorf("%d records; want %d", got, want)
			}
			end := s.log.size.Load()
			wantEnd := size
			if tc.applied {
				wantEnd += int64(len(frame))
			}
			if end != wantEnd {
				t.Errorf("the log ends at %d; want %d", end, wantEnd)
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			if got := fileSize(t, path); got != end {
				t.Errorf("the file is %d bytes after Close; want the log's %d", got, end)
			}
		})
	}
}

// openMapped makes a new log in a test directory and checks that it is
// mapped, as on every file system the tests run on.
func openMapped(t *testing.T) (*kvStore, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.log")
	s, err := openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.log.m == nil {
		t.Fatalf("the log in %s is not mapped", path)
	}
	return s, path
}

// TestKilledLeavesRoom leaves a mapped log as a killed engine does (room
// reserved past its end, no Close): the next open reads every record,
// reports no torn bytes for the zeros of the room, and cuts the file to
// the log's end.
func TestKilledLeavesRoom(t *testing.T) {
	s, path := openMapped(t)
	oid := object.OID{Lo: 3}
	for i := range 100 {
		if err := s.put(oid, fmt.Sprintf("d%d", i), "a", []byte{byte(i)}, false); err != nil {
			t.Fatal(err)
		}
	}
	end := s.log.size.Load()
	s.log.unmap()
	s.log.f.Close() // no close(): the room stays
	if got := fileSize(t, path); got <= end {
		t.Fatalf("the file is %d bytes, the log %d: no room was reserved", got, end)
	}
	l, cut, err := openLog(path, false, false, func(...record) {})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if cut != 0 || l.size.Load() != end {
		t.Errorf("reopened: log end %d, %d bytes cut; want %d and 0", l.size.Load(), cut, end)
	}
	if got := fileSize(t, path); got != end {
		t.Errorf("reopened: the file is %d bytes; want the log's %d", got, end)
	}
}

// TestMappedGrowth appends past the reserved room and past the mapping
// (made small for the test): the log grows both, or, when the mapping
// cannot grow (an address-space limit), goes on with write(2)s; either way
// every record is read back after Close, and the file ends at the log's
// end.
func TestMappedGrowth(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remap  bool // the mapping may grow
		mapped bool // the log is still mapped at the end
	}{
		{"remapped", true, true},
		{"remap fails", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := openMapped(t)
			s.log.unmap()
			var err error
			if s.log.m, err = mapShared(int(s.log.f.Fd()), 2<<20); err != nil {
				t.Fatal(err)
			}
			if !tc.remap {
				s.log.mmap = func(int, int) ([]byte, error) { return nil, unix.ENOMEM }
			}
			const n = 3000
			val := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 1000+i%7) }
			oid := object.OID{Lo: 9}
			for i := range n {
				if err := s.put(oid, fmt.Sprintf("d%d", i), "a", val(i), false); err != nil {
					t.Fatal(err)
				}
			}
			l := s.log
			if (l.m != nil) != tc.mapped {
				t.Errorf("mapped at the end: %v; want %v", l.m != nil, tc.mapped)
			}
			if tc.mapped && (l.room < l.size.Load() || int64(len(l.m)) < l.room || len(l.m) <= 2<<20) {
				t.Errorf("log end %d, room %d, mapping %d: want end <= room <= mapping, grown past 2 MiB", l.size.Load(), l.room, len(l.m))
			}
			end := l.size.Load()
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			if got := fileSize(t, path); got != end {
				t.Errorf("the file is %d bytes after Close; want the log's %d", got, end)
			}
			s, err = openKV(path, false, false)
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			for i := range n {
				if v, err := s.get(oid, fmt.Sprintf("d%d", i), "a"); err != nil || !bytes.Equal(v, val(i)) {
					t.Fatalf("record %d after reopening: %d bytes, %v", i, len(v), err)
				}
			}
		})
	}
}

// TestUnmappedAppends runs a log as on a file system that cannot reserve
// room: appends are write(2)s, and read back the same.
func TestUnmappedAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.log")
	s, err := openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	s.log.unmap()
	oid := object.OID{Lo: 4}
	for i := range 50 {
		if err := s.put(oid, fmt.Sprintf("d%d", i), "a", []byte{byte(i)}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.unlink(oid, "d0", "a", nil, &object.OID{Lo: 99}); err != nil {
		t.Fatal(err)
	}
	end := s.log.size.Load()
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got != end {
		t.Errorf("the file is %d bytes; want the log's %d", got, end)
	}
	s, err = openKV(path, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.get(oid, "d0", "a"); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("unlinked d0: %v; want ErrNotExist", err)
	}
	for i := 1; i < 50; i++ {
		if v, err := s.get(oid, fmt.Sprintf("d%d", i), "a"); err != nil || !bytes.Equal(v, []byte{byte(i)}) {
			t.Errorf("record %d: %v, %v", i, v, err)
		}
	}
}
