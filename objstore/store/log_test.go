package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// writeLog makes a log at path holding n records, and returns the offset
// at which each frame starts and the file's size.
func writeLog(t *testing.T, path string, n int) ([]int64, int64) {
	t.Helper()
	s, err := openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int64
	for i := range n {
		starts = append(starts, s.log.size.Load())
		if err := s.put(object.OID{Lo: uint64(i % 3)}, fmt.Sprintf("d%d", i), "a", bytes.Repeat([]byte{byte(i)}, 10+i), false); err != nil {
			t.Fatal(err)
		}
	}
	size := s.log.size.Load()
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	return starts, size
}

// count returns how many of writeLog's records s holds, failing the test
// on a record that differs.
func count(t *testing.T, s *kvStore, n int) int {
	t.Helper()
	got := 0
	for i := range n {
		v, err := s.get(object.OID{Lo: uint64(i % 3)}, fmt.Sprintf("d%d", i), "a")
		if errors.Is(err, object.ErrNotExist) {
			continue
		}
		if err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 10+i)) {
			t.Fatalf("record %d = %v, %v", i, v, err)
		}
		got++
	}
	return got
}

// TestTornTail cuts the log at every byte of its last record: recovery
// keeps the records before it, cuts the rest, and the log takes appends
// after it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.log")
	const n = 5
	starts, size := writeLog(t, orig, n)
	whole, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	last := starts[n-1]
	for cut := last; cut <= size; cut++ {
		path := filepath.Join(dir, fmt.Sprintf("cut%d.log", cut))
		if err := os.WriteFile(path, whole[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := openKV(path, false, true)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		want := n - 1
		if cut == size {
			want = n
		}
		if got := count(t, s, n); got != want {
			t.Errorf("cut at %d: %d records; want %d", cut, got, want)
		}
		if err := s.put(object.OID{}, "after", "a", []byte("x"), false); err != nil {
			t.Fatal(err)
		}
		s.close()
		if fi, _ := os.Stat(path); cut < size && fi.Size() >= size {
			t.Errorf("cut at %d: the torn tail was not cut (size %d)", cut, fi.Size())
		}
		s, err = openKV(path, false, true)
		if err != nil {
			t.Fatalf("cut at %d, reopened: %v", cut, err)
		}
		if v, err := s.get(object.OID{}, "after", "a"); err != nil || string(v) != "x" {
			t.Errorf("cut at %d: the record appended after recovery = %q, %v", cut, v, err)
		}
		s.close()
	}
}

func TestLogDamage(t *testing.T) {
	const n = 5
	for _, tc := range []struct {
		name    string
		damage  func(b []byte, starts []int64) []byte
		records int    // how many survive; -1: Open refuses
		text    string // what the refusal says
	}{
		{"bad checksum in the middle", func(b []byte, s []int64) []byte { b[s[2]+12] ^= 0xff; return b }, -1, "checksum"},
		{"bad length in the middle", func(b []byte, s []int64) []byte { b[s[1]] ^= 0x01; return b }, -1, "record at offset"},
		{"bad checksum of the last", func(b []byte, s []int64) []byte { b[len(b)-1] ^= 0xff; return b }, n - 1, ""},
		{"zeros after the end", func(b []byte, s []int64) []byte { return append(b, make([]byte, 4096)...) }, n, ""},
		{"last frame zeroed", func(b []byte, s []int64) []byte { clear(b[s[n-1]:]); return b }, n - 1, ""},
		{"garbage after the end", func(b []byte, s []int64) []byte { return append(b, "garbage that is no frame at all"...) }, -1, "corruption"},
		{"not a log", func(b []byte, s []int64) []byte { return []byte("definitely not a log file") }, -1, "not a KV log"},
		{"header cut short", func(b []byte, s []int64) []byte { return b[:3] }, 0, ""},
		{"a log of the first format", func(b []byte, s []int64) []byte { copy(b, logMagicV1); return b }, n, ""},
		{"bad checksum in the middle, zeros after it, then a frame", func(b []byte, s []int64) []byte {
			b[s[2]+12] ^= 0xff
			clear(b[s[3]:s[4]])
			return b
		}, -1, "corruption"},
		{"last frame's checksum inverted, room after it", func(b []byte, s []int64) []byte {
			b[s[n-1]+4] ^= 0xff
			return append(b, make([]byte, 4096)...)
		}, n - 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.log")
			starts, _ := writeLog(t, path, n)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, tc.damage(b, starts), 0o644)
			s, err := openKV(path, false, true)
			if tc.records < 0 {
				if err == nil {
					s.close()
				}
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.text) {
					t.Errorf("openKV: error %v; want a refusal naming %s and saying %q", err, path, tc.text)
				}
				return
			}
			if err != nil {
				t.Fatalf("openKV: %v", err)
			}
			defer s.close()
			if got := count(t, s, n); got != tc.records {
				t.Errorf("%d records survive; want %d", got, tc.records)
			}
			if h, _ := os.ReadFile(path); len(h) < len(logMagic) || string(h[:len(logMagic)]) != logMagic {
				t.Errorf("after Open the file begins %q; want %q", h[:min(len(h), len(logMagic))], logMagic)
			}
		})
	}
}

// TestCompact checks that compaction, at Open when garbage exceeds live
// data and on demand, keeps exactly the live records and the OID
// reservation, and shrinks the file.
func TestCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.log")
	s, err := openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	oid := object.OID{Lo: 7}
	first, _ := s.alloc(10)
	for i := range 200 {
		s.put(oid, fmt.Sprintf("d%d", i%10), "a", bytes.Repeat([]byte{byte(i)}, 100), false)
	}
	s.put(oid, "removed", "a", []byte("x"), false)
	s.remove(oid, "removed")
	s.put(object.OID{Lo: 8}, "punched", "a", []byte("x"), false)
	s.punch(object.OID{Lo: 8})
	before := s.log.size.Load()
	s.close()

	check := func(when string, s *kvStore) {
		t.Helper()
		for i := 190; i < 200; i++ {
			if v, err := s.get(oid, fmt.Sprintf("d%d", i%10), "a"); err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
				t.Errorf("%s: d%d = %v, %v", when, i%10, v, err)
			}
		}
		for _, k := range []struct {
			oid  object.OID
			dkey string
		}{{oid, "removed"}, {object.OID{Lo: 8}, "punched"}} {
			if _, err := s.get(k.oid, k.dkey, "a"); !errors.Is(err, object.ErrNotExist) {
				t.Errorf("%s: deleted %q is back: %v", when, k.dkey, err)
			}
		}
		if next, _ := s.alloc(1); next < first+10 {
			t.Errorf("%s: alloc = %d, below ids handed out before (%d+10)", when, next, first)
		}
	}
	s, err = openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	after := s.log.size.Load()
	if after >= before/2 {
		t.Errorf("Open did not compact: %d bytes before, %d after", before, after)
	}
	check("after Open", s)
	for range 50 {
		s.put(oid, "d0", "a", bytes.Repeat([]byte{byte(190)}, 100), false)
	}
	if err := s.compact(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".compact"); err == nil {
		t.Errorf("compact left its temporary file")
	}
	check("after compact", s)
	s.close()
	s, err = openKV(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	check("after compact and Open", s)
}
