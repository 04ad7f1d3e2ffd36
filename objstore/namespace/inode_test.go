package namespace

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/objstore/object"
)

func testInodes() map[string]Inode {
	t0 := time.Unix(1700000000, 123456789)
	return map[string]Inode{
		"file": {Mode: 0o644, OID: object.NewOID(object.SX, 1025), Atime: t0, Mtime: t0.Add(time.Second), Ctime: t0.Add(2 * time.Second),
			ChunkSize: 1 << 20, OClass: object.SX},
		"setuid file": {Mode: 0o755 | fs.ModeSetuid | fs.ModeSetgid, OID: object.NewOID(object.S2, 7), Atime: t0, Mtime: t0, Ctime: t0,
			ChunkSize: 4096, OClass: object.S2},
		"directory": {Mode: fs.ModeDir | fs.ModeSticky | 0o777, OID: object.NewOID(object.S1, 1), Atime: t0, Mtime: t0, Ctime: t0,
			OClass: object.S1},
		"link": {Mode: fs.ModeSymlink | 0o777, Atime: t0, Mtime: t0, Ctime: t0, Target: "../a/b"},
	}
}

func TestInodeRoundTrip(t *testing.T) {
	for name, in := range testInodes() {
		t.Run(name, func(t *testing.T) {
			b, err := in.encode()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != inodeFixed+len(in.Target) || b[0] != inodeVersion {
				t.Fatalf("encoded %d bytes, version %d", len(b), b[0])
			}
			got, err := decodeInode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Atime.Equal(in.Atime) || !got.Mtime.Equal(in.Mtime) || !got.Ctime.Equal(in.Ctime) {
				t.Errorf("times %v %v %v, want %v %v %v", got.Atime, got.Mtime, got.Ctime, in.Atime, in.Mtime, in.Ctime)
			}
			got.Atime, got.Mtime, got.Ctime = in.Atime, in.Mtime, in.Ctime
			if got != in {
				t.Errorf("decoded %+v, want %+v", got, in)
			}
		})
	}
}

// TestInodeEncoding pins the byte layout: it is on storage.
func TestInodeEncoding(t *testing.T) {
	in := Inode{Mode: 0o640, OID: object.OID{Hi: 0x0001000000000002, Lo: 3}, Atime: time.Unix(0, 4), Mtime: time.Unix(0, 5),
		Ctime: time.Unix(0, 6), ChunkSize: 4096, OClass: object.S1}
	b, err := in.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 0xa0, 0x81, 0, 0, // version, mode 0100640
		2, 0, 0, 0, 0, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, // oid
		4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, // times
		0, 0x10, 0, 0, 0, 0, 0, 0, // chunk size
		1, 0, 0, 0} // class, target length
	if !bytes.Equal(b, want) {
		t.Errorf("encoded\n%v\nwant\n%v", b, want)
	}
}

func TestInodeRefused(t *testing.T) {
	good, err := testInodes()["file"].encode()
	if err != nil {
		t.Fatal(err)
	}
	set := func(off int, v ...byte) []byte {
		b := append([]byte(nil), good...)
		copy(b[off:], v)
		return b
	}
	cases := map[string][]byte{
		"empty":              nil,
		"short":              good[:inodeFixed-1],
		"version 2":          set(0, 2),
		"fifo":               set(1, 0, 0x10), // S_IFIFO
		"unknown mode bits":  set(3, 0, 1),
		"class 3":            set(53, 3),
		"class not the id's": set(53, byte(object.S1)),
		"chunk size 0":       set(45, 0, 0, 0, 0, 0, 0, 0, 0),
		"target on a file":   append(set(55, 1), 'x'),
		"trailing byte":      append(append([]byte(nil), good...), 0),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if in, err := decodeInode(b); !errors.Is(err, object.ErrInvalid) {
				t.Errorf("decoded %+v, %v; want an error wrapping ErrInvalid", in, err)
			}
		})
	}
}

func FuzzDecodeInode(f *testing.F) {
	for _, in := range testInodes() {
		b, err := in.encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := decodeInode(b)
		if err != nil {
			return
		}
		again, err := in.encode()
		if err != nil {
			t.Fatalf("decoded %+v does not encode: %v", in, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded %+v re-encodes to\n%x\nnot\n%x", in, again, b)
		}
	})
}
