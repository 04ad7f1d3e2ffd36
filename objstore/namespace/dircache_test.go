package namespace

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// TestDirCacheCoherent: a mount with the directory cache sees what another
// mount of the container does to the directories it has cached: a
// directory removed and made again (mdtest's tree in its next iteration),
// removed for good, or renamed away from above a create.
func TestDirCacheCoherent(t *testing.T) {
	ctx := context.Background()
	cont := newCont(t, object.ContProps{})
	other, err := Mount(ctx, cont, Options{})
	must(t, err)
	// remake removes /t/d with its files and makes it again, empty.
	remake := func() error {
		if err := removeAll(ctx, other, "/t/d"); err != nil {
			return err
		}
		return other.Mkdir(ctx, "/t/d", 0o755)
	}
	cases := []struct {
		name string
		// then is what the other mount does after the cached mount has
		// made /t/d/f0 and /t/d/keep (so /t and /t/d are cached).
		then func() error
		// check runs on the cached mount.
		check func(c *FS) error
	}{
		{"removed and made again: a create goes to the new directory", remake, func(c *FS) error {
			if _, err := c.Create(ctx, "/t/d/f1", 0o644, Excl); err != nil {
				return err
			}
			_, err := other.Stat(ctx, "/t/d/f1") // where the other mount looks
			return err
		}},
		{"removed and made again: a stat finds the new directory's file", func() error {
			must(t, remake())
			_, err := other.Create(ctx, "/t/d/new", 0o644, Excl)
			return err
		}, func(c *FS) error {
			_, err := c.Stat(ctx, "/t/d/new")
			return err
		}},
		{"removed for good: a create fails", func() error {
			return removeAll(ctx, other, "/t/d")
		}, func(c *FS) error {
			if _, err := c.Create(ctx, "/t/d/f1", 0o644, Excl); !errors.Is(err, fs.ErrNotExist) {
				return errors.New("create in a removed directory: " + errString(err) + ", want ENOENT")
			}
			return nil
		}},
		{"renamed away: a create fails, a create at the new name works", func() error {
			return other.Rename(ctx, "/t/d", "/t/e")
		}, func(c *FS) error {
			if _, err := c.Create(ctx, "/t/d/f1", 0o644, Excl); !errors.Is(err, fs.ErrNotExist) {
				return errors.New("create in a renamed directory: " + errString(err) + ", want ENOENT")
			}
			if _, err := c.Create(ctx, "/t/e/f1", 0o644, Excl); err != nil {
				return err
			}
			_, err := other.Stat(ctx, "/t/e/f1")
			return err
		}},
		{"removed and made again: the old file is gone", remake, func(c *FS) error {
			if _, err := c.Stat(ctx, "/t/d/keep"); !errors.Is(err, fs.ErrNotExist) {
				return errors.New("stat of a file removed with its directory: " + errString(err) + ", want ENOENT")
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Mount(ctx, cont, Options{DirCache: true})
			must(t, err)
			must(t, c.MkdirAll(ctx, "/t/d", 0o755))
			for _, n := range []string{"/t/d/f0", "/t/d/keep"} {
				_, err := c.Create(ctx, n, 0o644, Excl)
				must(t, err)
			}
			must(t, tc.then())
			if err := tc.check(c); err != nil {
				t.Error(err)
			}
			must(t, removeAll(ctx, other, "/t"))
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// removeAll removes the tree at p through f.
func removeAll(ctx context.Context, f *FS, p string) error {
	in, err := f.Lookup(ctx, p)
	if err != nil {
		return err
	}
	if !in.IsDir() {
		return f.Remove(ctx, p)
	}
	d, err := f.OpenDir(ctx, p)
	if err != nil {
		return err
	}
	names, _, err := d.ReadDir(ctx, "", 0)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := removeAll(ctx, f, p+"/"+n); err != nil {
			return err
		}
	}
	return f.Rmdir(ctx, p)
}
