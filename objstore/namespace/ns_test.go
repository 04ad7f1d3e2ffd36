package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// op is one namespace call of a table-driven test.
type op struct {
	name string
	do   func(ctx context.Context, f *FS) error
	want error // nil: the call succeeds
}

func mkdir(p string) func(context.Context, *FS) error {
	return func(ctx context.Context, f *FS) error { return f.Mkdir(ctx, p, 0o755) }
}

func create(p string, fl Flags) func(context.Context, *FS) error {
	return func(ctx context.Context, f *FS) error {
		_, err := f.Create(ctx, p, 0o644, fl)
		return err
	}
}

func rename(from, to string) func(context.Context, *FS) error {
	return func(ctx context.Context, f *FS) error { return f.Rename(ctx, from, to) }
}

// runOps runs ops in order on f and checks each one's error.
func runOps(t *testing.T, f *FS, ops []op) {
	t.Helper()
	ctx := context.Background()
	for _, o := range ops {
		err := o.do(ctx, f)
		if (o.want == nil) != (err == nil) || !errors.Is(err, o.want) {
			t.Fatalf("%s: %v; want %v", o.name, err, o.want)
		}
		var pe *fs.PathError
		var le *os.LinkError
		if err != nil && !errors.As(err, &pe) && !errors.As(err, &le) {
			t.Fatalf("%s: %v is neither an *fs.PathError nor an *os.LinkError", o.name, err)
		}
	}
}

// tree returns every path below dir, sorted, directories with a "/".
func tree(t *testing.T, f *FS, dir string) []string {
	t.Helper()
	ctx := context.Background()
	names, _, err := f.ReadDir(ctx, dir, "", 0)
	must(t, err)
	var out []string
	for _, n := range names {
		p := dir + "/" + n
		if dir == "/" {
			p = "/" + n
		}
		in, err := f.Lookup(ctx, p)
		must(t, err)
		if in.IsDir() {
			out = append(out, p+"/")
			out = append(out, tree(t, f, p)...)
		} else {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func TestNamespace(t *testing.T) {
	cases := []struct {
		name string
		ops  []op
		tree []string
	}{
		{"mkdir -p tree", []op{
			{"mkdir -p /a/b/c", func(ctx context.Context, f *FS) error { return f.MkdirAll(ctx, "/a/b/c", 0o755) }, nil},
			{"mkdir -p again", func(ctx context.Context, f *FS) error { return f.MkdirAll(ctx, "a/b", 0o755) }, nil},
			{"create /a/b/f", create("/a/b/f", Excl), nil},
			{"mkdir -p through a file", func(ctx context.Context, f *FS) error { return f.MkdirAll(ctx, "/a/b/f/g", 0o755) }, syscall.ENOTDIR},
			{"mkdir /a", mkdir("/a"), fs.ErrExist},
			{"mkdir /x/y", mkdir("/x/y"), fs.ErrNotExist},
			{"mkdir below a file", mkdir("/a/b/f/g"), syscall.ENOTDIR},
			{"mkdir /", mkdir("/"), syscall.EINVAL},
		}, []string{"/a/", "/a/b/", "/a/b/c/", "/a/b/f"}},
		{"create", []op{
			{"create /f", create("/f", Excl), nil},
			{"create /f exclusive again", create("/f", Excl), fs.ErrExist},
			{"create /f again", create("/f", 0), nil},
			{"mkdir /d", mkdir("/d"), nil},
			{"create over a directory", create("/d", 0), syscall.EISDIR},
			{"create in a missing directory", create("/nope/f", 0), fs.ErrNotExist},
			{"create below a file", create("/f/g", 0), syscall.ENOTDIR},
			{"open a directory", func(ctx context.Context, f *FS) error { _, err := f.Open(ctx, "/d", 0); return err }, syscall.EISDIR},
			{"open missing", func(ctx context.Context, f *FS) error { _, err := f.Open(ctx, "/g", 0); return err }, fs.ErrNotExist},
			{"symlink /l", func(ctx context.Context, f *FS) error { return f.Symlink(ctx, "/f", "/l") }, nil},
			{"open a link", func(ctx context.Context, f *FS) error { _, err := f.Open(ctx, "/l", 0); return err }, syscall.ELOOP},
			{"walk through a link", create("/l/x", 0), syscall.ENOTDIR},
		}, []string{"/d/", "/f", "/l"}},
		{"remove", []op{
			{"mkdir /d", mkdir("/d"), nil},
			{"create /d/f", create("/d/f", Excl), nil},
			{"rmdir non-empty", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/d") }, syscall.ENOTEMPTY},
			{"rmdir a file", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/d/f") }, syscall.ENOTDIR},
			{"remove a directory", func(ctx context.Context, f *FS) error { return f.Remove(ctx, "/d") }, syscall.EISDIR},
			{"remove /d/f", func(ctx context.Context, f *FS) error { return f.Remove(ctx, "/d/f") }, nil},
			{"remove /d/f again", func(ctx context.Context, f *FS) error { return f.Remove(ctx, "/d/f") }, fs.ErrNotExist},
			{"rmdir /d", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/d") }, nil},
			{"rmdir /d again", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/d") }, fs.ErrNotExist},
			{"rmdir /", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/") }, syscall.EINVAL},
		}, nil},
		{"rename", []op{
			{"mkdir /a", mkdir("/a"), nil},
			{"mkdir /b", mkdir("/b"), nil},
			{"mkdir /b/c", mkdir("/b/c"), nil},
			{"create /a/f", create("/a/f", Excl), nil},
			{"create /a/g", create("/a/g", Excl), nil},
			{"file to a new name", rename("/a/f", "/a/f2"), nil},
			{"file over a file", rename("/a/f2", "/a/g"), nil},
			{"file to itself", rename("/a/g", "/a/g"), nil},
			{"file over a directory", rename("/a/g", "/b"), syscall.EISDIR},
			{"directory over a file", rename("/b", "/a/g"), syscall.ENOTDIR},
			{"directory over a non-empty one", rename("/a", "/b"), syscall.ENOTEMPTY},
			{"directory below itself", rename("/b", "/b/c/d"), syscall.EINVAL},
			{"missing source", rename("/nope", "/x"), fs.ErrNotExist},
			{"into a missing directory", rename("/a/g", "/nope/g"), fs.ErrNotExist},
			{"directory over an empty one", rename("/b", "/a/e"), nil},
			{"create in the moved directory", create("/a/e/c/h", Excl), nil},
			{"directory over an empty directory", func(ctx context.Context, f *FS) error {
				if err := f.Mkdir(ctx, "/empty", 0o755); err != nil {
					return err
				}
				return f.Rename(ctx, "/a/e/c", "/empty")
			}, nil},
		}, []string{"/a/", "/a/e/", "/a/g", "/empty/", "/empty/h"}},
	}
	for _, c := range cases {
		for _, cache := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/cache=%v", c.name, cache), func(t *testing.T) {
				f := newFS(t, Options{DirCache: cache})
				runOps(t, f, c.ops)
				if got := tree(t, f, "/"); !slices.Equal(got, c.tree) {
					t.Errorf("tree %q, want %q", got, c.tree)
				}
			})
		}
	}
}

func TestRenameReplacesAndPunches(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, Options{})
	src, err := f.Create(ctx, "/src", 0o644, Excl)
	must(t, err)
	_, err = src.WriteAt(ctx, []byte("new"), 0)
	must(t, err)
	dst, err := f.Create(ctx, "/dst", 0o644, Excl)
	must(t, err)
	_, err = dst.WriteAt(ctx, []byte("old data"), 0)
	must(t, err)
	must(t, f.Rename(ctx, "/src", "/dst"))
	info, err := f.Stat(ctx, "/dst")
	must(t, err)
	if info.OID != src.OID() || info.Size != 3 {
		t.Errorf("/dst is %v of %d bytes, want %v of 3", info.OID, info.Size, src.OID())
	}
	if n, err := dst.Size(ctx); err != nil || n != 0 {
		t.Errorf("replaced object: size %d, %v; want punched (0)", n, err)
	}
	if _, err := f.Stat(ctx, "/src"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat /src: %v, want ErrNotExist", err)
	}
}

func TestCreateExclusiveRace(t *testing.T) {
	const n = 16
	f := newFS(t, Options{OIDBatch: 3})
	ctx := context.Background()
	other, err := Mount(ctx, f.Container(), Options{OIDBatch: 3}) // another rank's
	must(t, err)
	var wg sync.WaitGroup
	errs := make([]error, n)
	files := make([]*File, n)
	for i := range n {
		m := []*FS{f, other}[i%2]
		wg.Go(func() { files[i], errs[i] = m.Create(ctx, "/race", 0o644, Excl) })
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("creates %d and %d both won", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("create %d: %v, want ErrExist", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no create won")
	}
	info, err := f.Stat(ctx, "/race")
	must(t, err)
	if info.OID != files[won].OID() {
		t.Errorf("/race is %v, the winner made %v", info.OID, files[won].OID())
	}
}

func TestAllocUnique(t *testing.T) {
	const workers, per = 4, 300
	f := newFS(t, Options{OIDBatch: 7})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				if errs[w] = f.Mkdir(ctx, fmt.Sprintf("/d%d.%d", w, i), 0o755); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool)
	names, _, err := f.ReadDir(ctx, "/", "", 0)
	must(t, err)
	for _, e := range errs {
		must(t, e)
	}
	for _, n := range names {
		in, err := f.Lookup(ctx, "/"+n)
		must(t, err)
		if seen[in.OID.String()] {
			t.Errorf("%s reuses %v", n, in.OID)
		}
		seen[in.OID.String()] = true
	}
	if len(seen) != workers*per {
		t.Errorf("%d distinct ids, want %d", len(seen), workers*per)
	}
}

func TestReadDirPages(t *testing.T) {
	const n = 1000
	f := newFS(t, Options{})
	ctx := context.Background()
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("f%04d", i)
		_, err := f.Create(ctx, "/big/"+want[i], 0o644, Excl)
		if i == 0 && errors.Is(err, fs.ErrNotExist) {
			must(t, f.Mkdir(ctx, "/big", 0o755))
			_, err = f.Create(ctx, "/big/"+want[i], 0o644, Excl)
		}
		must(t, err)
	}
	for _, page := range []int{1, 7, 128, n, 0} {
		t.Run(fmt.Sprint(page), func(t *testing.T) {
			var got []string
			anchor, calls := "", 0
			for {
				names, next, err := f.ReadDir(ctx, "/big", anchor, page)
				must(t, err)
				if page > 0 && len(names) > page {
					t.Fatalf("page of %d names, asked %d", len(names), page)
				}
				got = append(got, names...)
				calls++
				if next == "" {
					break
				}
				anchor = next
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("listed %d names over %d pages, want the %d created", len(got), calls, n)
			}
		})
	}
	if _, _, err := f.ReadDir(ctx, "/big/f0000", "", 0); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("readdir of a file: %v, want ENOTDIR", err)
	}
}

func TestReadOnlyMount(t *testing.T) {
	ctx := context.Background()
	rw := newFS(t, Options{})
	fl, err := rw.Create(ctx, "/f", 0o644, Excl)
	must(t, err)
	must(t, rw.Mkdir(ctx, "/d", 0o755))
	ro, err := Mount(ctx, rw.Container(), Options{ReadOnly: true})
	must(t, err)
	runOps(t, ro, []op{
		{"create", create("/g", 0), syscall.EROFS},
		{"mkdir", mkdir("/e"), syscall.EROFS},
		{"rename", rename("/f", "/g"), syscall.EROFS},
		{"remove", func(ctx context.Context, f *FS) error { return f.Remove(ctx, "/f") }, syscall.EROFS},
		{"rmdir", func(ctx context.Context, f *FS) error { return f.Rmdir(ctx, "/d") }, syscall.EROFS},
		{"symlink", func(ctx context.Context, f *FS) error { return f.Symlink(ctx, "f", "/l") }, syscall.EROFS},
		{"open with Trunc", func(ctx context.Context, f *FS) error { _, err := f.Open(ctx, "/f", Trunc); return err }, syscall.EROFS},
		{"write through a shared handle", func(ctx context.Context, f *FS) error {
			h, err := f.OpenHandle(fl.Handle())
			if err != nil {
				return err
			}
			_, err = h.WriteAt(ctx, []byte{1}, 0)
			return &fs.PathError{Op: "write", Path: "/f", Err: err}
		}, syscall.EBADF},
	})
}

func TestErrorWording(t *testing.T) {
	f := newFS(t, Options{})
	ctx := context.Background()
	must(t, f.Mkdir(ctx, "/d", 0o755))
	_, err := f.Create(ctx, "/d/x/f", 0o644, 0)
	if !containsAll(err, "create /d/x/f: ", `entry "x"`, "no such file or directory") {
		t.Errorf("create below a missing directory: %q", err)
	}
	err = f.Rename(ctx, "/d", "/d/e")
	if !containsAll(err, "rename /d /d/e: ", "below itself") {
		t.Errorf("rename below itself: %q", err)
	}
}
