package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestRemoveMade: a mount removes a file it made with one conditional
// removal and no read; when another mount removed, replaced or renamed
// over the file meanwhile, the removal never takes the wrong object: it
// looks the entry up again and removes what is there (or reports ENOENT),
// and the object punched is the one the entry named at the time.
func TestRemoveMade(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// before runs after mine has made /f with one byte in it and
		// returns the path mine removes.
		before func(t *testing.T, mine, other *FS) string
		calls  map[string]int
		err    error // what the removal wraps; nil for success
	}{
		{"untouched", func(*testing.T, *FS, *FS) string { return "/f" },
			map[string]int{"RemoveIf": 1, "Punch": 1}, nil},
		{"removed by another mount", func(t *testing.T, _, other *FS) string {
			must(t, other.Remove(ctx, "/f"))
			return "/f"
		}, map[string]int{"RemoveIf": 1}, fs.ErrNotExist},
		{"replaced by another mount", func(t *testing.T, _, other *FS) string {
			must(t, other.Remove(ctx, "/f"))
			write(t, other, "/f")
			return "/f"
		}, map[string]int{"RemoveIf": 1, "Get": 1, "Remove": 1, "Punch": 1}, nil},
		{"renamed over by another mount", func(t *testing.T, _, other *FS) string {
			write(t, other, "/g")
			must(t, other.Rename(ctx, "/g", "/f"))
			return "/f"
		}, map[string]int{"RemoveIf": 1, "Get": 1, "Remove": 1, "Punch": 1}, nil},
		{"renamed by this mount", func(t *testing.T, mine, _ *FS) string {
			must(t, mine.Rename(ctx, "/f", "/h"))
			return "/h"
		}, map[string]int{"RemoveIf": 1, "Punch": 1}, nil},
		{"renamed away by this mount, then made by another", func(t *testing.T, mine, other *FS) string {
			must(t, mine.Rename(ctx, "/f", "/h"))
			write(t, other, "/f")
			return "/f"
		}, map[string]int{"Get": 1, "Remove": 1, "Punch": 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cont := &counting{Container: newCont(t, object.ContProps{}), calls: map[string]int{}}
			mine, err := Mount(ctx, cont, Options{})
			must(t, err)
			other, err := Mount(ctx, cont, Options{})
			must(t, err)
			write(t, mine, "/f")
			p := tc.before(t, mine, other)
			var victim object.OID
			if in, err := other.Lookup(ctx, p); err == nil {
				victim = in.OID
			}
			cont.take()
			err = mine.Remove(ctx, p)
			if got := cont.take(); !maps.Equal(got, tc.calls) {
				t.Errorf("calls %v, want %v", got, tc.calls)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Remove(%s) = %v; want an error wrapping %v", p, err, tc.err)
				}
				return
			}
			must(t, err)
			if _, err := other.Lookup(ctx, p); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Lookup(%s) after Remove: %v; want ErrNotExist", p, err)
			}
			size, err := cont.ArraySize(ctx, object.Array{OID: victim, ChunkSize: 1 << 20})
			must(t, err)
			if size != 0 {
				t.Errorf("the removed entry's object %v holds %d bytes; want it punched", victim, size)
			}
		})
	}
}

// write creates the file p on f with one byte in it.
func write(t *testing.T, f *FS, p string) {
	t.Helper()
	ctx := context.Background()
	fl, err := f.Create(ctx, p, 0o644, Excl)
	must(t, err)
	_, err = fl.WriteAt(ctx, []byte{1}, 0)
	must(t, err)
	must(t, fl.Close())
}

// TestMadeBound: a mount remembers at most madeMax files; the rest are
// removed the ordinary way, and take forgets what it returns.
func TestMadeBound(t *testing.T) {
	m := newMade()
	dir := object.NewOID(object.S1, 7)
	for i := range madeMax + 10 {
		m.put(dir, fmt.Sprint(i), []byte{byte(i)})
	}
	if n := len(m.entries); n != madeMax {
		t.Fatalf("%d entries remembered; want madeMax, %d", n, madeMax)
	}
	if b, ok := m.take(dir, "5"); !ok || len(b) != 1 || b[0] != 5 {
		t.Errorf("take(5) = %v, %v; want [5], true", b, ok)
	}
	if _, ok := m.take(dir, "5"); ok {
		t.Error("take(5) a second time found it; want it forgotten")
	}
	if _, ok := m.take(dir, fmt.Sprint(madeMax)); ok {
		t.Error("an entry past the bound was remembered")
	}
	m.put(dir, "new", []byte{1})
	if _, ok := m.take(dir, "new"); !ok {
		t.Error("after a take made room, put did not remember")
	}
}

// TestMadeUndecodable: a remembered inode that does not decode (it never
// should) costs the removal nothing but the read it would have saved.
func TestMadeUndecodable(t *testing.T) {
	ctx := context.Background()
	cont := &counting{Container: newCont(t, object.ContProps{}), calls: map[string]int{}}
	f, err := Mount(ctx, cont, Options{})
	must(t, err)
	write(t, f, "/f")
	f.made.take(f.root.OID, "f")
	f.made.put(f.root.OID, "f", []byte("not an inode"))
	cont.take()
	must(t, f.Remove(ctx, "/f"))
	if got, want := cont.take(), map[string]int{"Get": 1, "Remove": 1, "Punch": 1}; !maps.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
