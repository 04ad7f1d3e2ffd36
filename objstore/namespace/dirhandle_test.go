package namespace

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestDir(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, Options{})
	must(t, f.MkdirAll(ctx, "/a/b", 0o755))
	d, err := f.OpenDir(ctx, "a/b/")
	must(t, err)
	if _, err := f.OpenDir(ctx, "/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("opendir /nope: %v, want ErrNotExist", err)
	}
	cases := []struct {
		name string
		do   func() error
		want error
		path string // the path the error names
	}{
		{"create f", func() error { _, err := d.Create(ctx, "f", 0o644, Excl); return err }, nil, ""},
		{"create f again", func() error { _, err := d.Create(ctx, "f", 0o644, Excl); return err }, fs.ErrExist, "/a/b/f"},
		{"open f", func() error { _, err := d.Open(ctx, "f", ReadOnly); return err }, nil, ""},
		{"mkdir s", func() error { return d.Mkdir(ctx, "s", 0o700) }, nil, ""},
		{"open s", func() error { _, err := d.Open(ctx, "s", 0); return err }, syscall.EISDIR, "/a/b/s"},
		{"stat s", func() error {
			info, err := d.Stat(ctx, "s")
			if err == nil && info.Mode != fs.ModeDir|0o700 {
				t.Errorf("stat s: mode %v", info.Mode)
			}
			return err
		}, nil, ""},
		{"remove s", func() error { return d.Remove(ctx, "s") }, syscall.EISDIR, "/a/b/s"},
		{"a name with a /", func() error { _, err := d.Create(ctx, "x/y", 0o644, 0); return err }, syscall.EINVAL, "/a/b/x/y"},
		{"the name ..", func() error { return d.Mkdir(ctx, "..", 0o755) }, syscall.EINVAL, "/a"},
		{"an empty name", func() error { _, err := d.Stat(ctx, ""); return err }, syscall.EINVAL, "/a/b"},
		{"a long name", func() error { return d.Remove(ctx, strings.Repeat("n", maxName+1)) }, syscall.ENAMETOOLONG, ""},
		{"remove f", func() error { return d.Remove(ctx, "f") }, nil, ""},
		{"stat f", func() error { _, err := d.Stat(ctx, "f"); return err }, fs.ErrNotExist, "/a/b/f"},
	}
	for _, c := range cases {
		err := c.do()
		if (c.want == nil) != (err == nil) || !errors.Is(err, c.want) {
			t.Fatalf("%s: %v; want %v", c.name, err, c.want)
		}
		var pe *fs.PathError
		if err != nil && (!errors.As(err, &pe) || c.path != "" && pe.Path != c.path) {
			t.Errorf("%s: %v; want an *fs.PathError on %q", c.name, err, c.path)
		}
	}
	names, _, err := d.ReadDir(ctx, "", 0)
	must(t, err)
	if !slices.Equal(names, []string{"s"}) {
		t.Errorf("readdir: %q, want [s]", names)
	}
	if d.Inode().OID == f.root.OID || !d.Inode().IsDir() {
		t.Errorf("Dir's inode %+v", d.Inode())
	}
}
