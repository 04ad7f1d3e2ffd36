package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestCallCost pins what each operation asks of the container: mdtest's
// rates are these calls' round-trips.
func TestCallCost(t *testing.T) {
	ctx := context.Background()
	cont := &counting{Container: newCont(t, object.ContProps{}), calls: map[string]int{}}
	f, err := Mount(ctx, cont, Options{OIDBatch: 4})
	must(t, err)
	must(t, f.Mkdir(ctx, "/d", 0o755))           // the first batch of S1 ids
	_, err = f.Create(ctx, "/warm", 0o644, Excl) // of SX ids, 3 left
	must(t, err)
	cached, err := Mount(ctx, cont, Options{OIDBatch: 4, DirCache: true})
	must(t, err)
	_, err = cached.Create(ctx, "/d/warm", 0o644, Excl) // batch, cache /d
	must(t, err)
	must(t, f.MkdirAll(ctx, "/d/e/g", 0o755))
	deep, err := f.OpenDir(ctx, "/d/e/g")
	must(t, err)
	cont.take()
	cases := []struct {
		name string
		do   func() error
		want map[string]int
	}{
		{"create in the root", func() error { _, err := f.Create(ctx, "/f", 0o644, Excl); return err },
			map[string]int{"Insert": 1}},
		{"create in a directory", func() error { _, err := f.Create(ctx, "/d/f", 0o644, Excl); return err },
			map[string]int{"Get": 1, "Insert": 1}},
		{"create in a cached directory (its entry read again)", func() error { _, err := cached.Create(ctx, "/d/g", 0o644, Excl); return err },
			map[string]int{"Get": 1, "Insert": 1}},
		{"create three deep, uncached", func() error { _, err := f.Create(ctx, "/d/e/g/f1", 0o644, Excl); return err },
			map[string]int{"Get": 3, "Insert": 1}},
		{"create three deep, the cache filled", func() error {
			if _, err := cached.Lookup(ctx, "/d/e/g"); err != nil {
				return err
			}
			cont.take()
			_, err := cached.Create(ctx, "/d/e/g/f2", 0o644, Excl)
			return err
		}, map[string]int{"Get": 1, "Insert": 1}},
		{"stat three deep, cached", func() error { _, err := cached.Stat(ctx, "/d/e/g/f2"); return err },
			map[string]int{"Get": 1, "ArraySize": 1}},
		{"remove three deep, cached, a file this mount made", func() error { return cached.Remove(ctx, "/d/e/g/f2") },
			map[string]int{"RemoveIf": 1, "Punch": 1}},
		{"a missing entry, cached: looked up again, fresh", func() error {
			if _, err := cached.Stat(ctx, "/d/e/g/nosuch"); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("stat of a missing file: %v", err)
			}
			return nil
		}, map[string]int{"Get": 5}},
		{"create past a batch", func() error {
			for i := range 3 {
				if _, err := f.Create(ctx, fmt.Sprintf("/f%d", i), 0o644, Excl); err != nil {
					return err
				}
			}
			return nil
		}, map[string]int{"AllocOIDs": 1, "Insert": 3}},
		{"create through a Dir", func() error { _, err := deep.Create(ctx, "f", 0o644, Excl); return err },
			map[string]int{"Insert": 1}},
		{"stat a file", func() error { _, err := f.Stat(ctx, "/d/f"); return err },
			map[string]int{"Get": 2, "ArraySize": 1}},
		{"remove a file this mount made", func() error { return f.Remove(ctx, "/f") },
			map[string]int{"RemoveIf": 1, "Punch": 1}},
		{"remove a file another mount made", func() error { return f.Remove(ctx, "/d/warm") },
			map[string]int{"Get": 2, "Remove": 1, "Punch": 1}},
		{"rename a file", func() error { return f.Rename(ctx, "/f0", "/g") },
			map[string]int{"Get": 2, "Put": 1, "Remove": 1}},
	}
	for _, c := range cases {
		must(t, c.do())
		if got := cont.take(); !maps.Equal(got, c.want) {
			t.Errorf("%s: calls %v, want %v", c.name, got, c.want)
		}
	}
}

// unlinking is a counting container that is also an object.Unlinker:
// Unlink counts itself, then removes and punches on the container below
// unless fail says what to report instead.
type unlinking struct {
	*counting
	fail func() (removed bool, err error) // nil: do the work
}

func (u *unlinking) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (bool, error) {
	u.count("Unlink")
	if u.fail != nil {
		return u.fail()
	}
	return object.Unlink(ctx, u.Container, oid, dkey, akey, expect, victim)
}

// TestRemoveUnlinker: on a container that is an object.Unlinker, removing
// a file another mount made is a Get and one Unlink (two round trips),
// one this mount made is one Unlink, and Unlink's outcomes
// come back as Remove's and Punch's did: a removed-meanwhile entry as
// ENOENT, a failed punch naming the object.
func TestRemoveUnlinker(t *testing.T) {
	ctx := context.Background()
	errPunch := errors.New("punch failed")
	for _, tc := range []struct {
		name string
		fail func() (bool, error)
		want string // "" for success, else a part of the error
		is   error
	}{
		{"removed", nil, "", nil},
		{"removed meanwhile", func() (bool, error) { return false, object.ErrNotExist }, "removed meanwhile", fs.ErrNotExist},
		{"remove fails", func() (bool, error) { return false, object.ErrInvalid }, "remove entry", object.ErrInvalid},
		{"punch fails", func() (bool, error) { return true, errPunch }, "punch object", errPunch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unlinking{counting: &counting{Container: newCont(t, object.ContProps{}), calls: map[string]int{}}, fail: tc.fail}
			f, err := Mount(ctx, u, Options{})
			must(t, err)
			other, err := Mount(ctx, u, Options{})
			must(t, err)
			for _, mk := range []*FS{other, f} {
				_, err = mk.Create(ctx, "/f", 0o644, Excl)
				must(t, err)
				u.take()
				err = f.Remove(ctx, "/f")
				want := map[string]int{"Get": 1, "Unlink": 1}
				if mk == f {
					want = map[string]int{"Unlink": 1}
				}
				if got := u.take(); !maps.Equal(got, want) {
					t.Errorf("made by this mount %v: calls %v, want %v", mk == f, got, want)
				}
				switch {
				case tc.want == "" && err != nil:
					t.Fatalf("Remove: %v", err)
				case tc.want == "":
					if _, err := f.Stat(ctx, "/f"); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("Stat after Remove: %v; want ErrNotExist", err)
					}
				case err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want):
					t.Errorf("Remove = %v; want an error with %q wrapping %v", err, tc.want, tc.is)
				}
				if tc.want != "" {
					return
				}
			}
		})
	}
}

// TestRenameUnlinker: a rename over a file, on an object.Unlinker
// container, removes the old entry and punches the replaced file's object
// with one Unlink; the moved file is then found at the new name only.
func TestRenameUnlinker(t *testing.T) {
	ctx := context.Background()
	u := &unlinking{counting: &counting{Container: newCont(t, object.ContProps{}), calls: map[string]int{}}}
	f, err := Mount(ctx, u, Options{})
	must(t, err)
	for _, p := range []string{"/a", "/b"} {
		_, err := f.Create(ctx, p, 0o644, Excl)
		must(t, err)
	}
	a, err := f.Stat(ctx, "/a")
	must(t, err)
	u.take()
	must(t, f.Rename(ctx, "/a", "/b"))
	if got, want := u.take(), map[string]int{"Get": 2, "Put": 1, "Unlink": 1}; !maps.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if _, err := f.Stat(ctx, "/a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(/a) after the rename: %v; want ErrNotExist", err)
	}
	b, err := f.Stat(ctx, "/b")
	must(t, err)
	if b.Inode.OID != a.Inode.OID {
		t.Errorf("/b is object %v after the rename; want /a's %v", b.Inode.OID, a.Inode.OID)
	}
}
