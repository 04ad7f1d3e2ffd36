package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// tree lists every path below dir, for checking that a failed Create left
// nothing.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		out = append(out, path)
		return nil
	})
	return out
}

func TestCreateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string) (string, CreateOptions)
		want  error
		text  string
	}{
		{"dir is a regular file", func(t *testing.T, root string) (string, CreateOptions) {
			os.WriteFile(filepath.Join(root, "f"), nil, 0o644)
			return filepath.Join(root, "f"), CreateOptions{}
		}, object.ErrInvalid, "is a regular file, not a directory"},
		{"a pool already", func(t *testing.T, root string) (string, CreateOptions) {
			if err := Create(filepath.Join(root, "p"), CreateOptions{NTargets: 1}); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "p"), CreateOptions{}
		}, object.ErrExist, "holds a pool already"},
		{"dir not empty", func(t *testing.T, root string) (string, CreateOptions) {
			os.MkdirAll(filepath.Join(root, "p", "x"), 0o755)
			return filepath.Join(root, "p"), CreateOptions{}
		}, object.ErrInvalid, "is not empty"},
		{"parent missing", func(t *testing.T, root string) (string, CreateOptions) {
			return filepath.Join(root, "no", "p"), CreateOptions{}
		}, fs.ErrNotExist, "no such file"},
		{"too many targets", func(t *testing.T, root string) (string, CreateOptions) {
			return filepath.Join(root, "p"), CreateOptions{NTargets: MaxTargets + 1}
		}, object.ErrInvalid, "1025 targets"},
		{"negative targets", func(t *testing.T, root string) (string, CreateOptions) {
			return filepath.Join(root, "p"), CreateOptions{NTargets: -1}
		}, object.ErrInvalid, "-1 targets"},
		{"target is a file", func(t *testing.T, root string) (string, CreateOptions) {
			os.WriteFile(filepath.Join(root, "t"), nil, 0o644)
			return filepath.Join(root, "p"), CreateOptions{Targets: []string{filepath.Join(root, "t")}}
		}, object.ErrInvalid, "is a regular file"},
		{"target not empty", func(t *testing.T, root string) (string, CreateOptions) {
			os.MkdirAll(filepath.Join(root, "t", "data"), 0o755)
			return filepath.Join(root, "p"), CreateOptions{Targets: []string{filepath.Join(root, "t")}}
		}, object.ErrInvalid, "is not empty"},
		{"target twice", func(t *testing.T, root string) (string, CreateOptions) {
			t1 := filepath.Join(root, "t1")
			return filepath.Join(root, "p"), CreateOptions{Targets: []string{t1, filepath.Join(root, "t2"), t1}}
		}, object.ErrInvalid, "repeated"},
		{"target holds the pool", func(t *testing.T, root string) (string, CreateOptions) {
			os.Mkdir(filepath.Join(root, "t"), 0o755)
			return filepath.Join(root, "t", "p"), CreateOptions{Targets: []string{filepath.Join(root, "t")}}
		}, object.ErrInvalid, "holds the pool directory"},
		{"targets and NTargets disagree", func(t *testing.T, root string) (string, CreateOptions) {
			return filepath.Join(root, "p"), CreateOptions{Targets: []string{filepath.Join(root, "t")}, NTargets: 2}
		}, object.ErrInvalid, "NTargets 2"},
		{"a later target's parent missing", func(t *testing.T, root string) (string, CreateOptions) {
			return filepath.Join(root, "p"), CreateOptions{Targets: []string{filepath.Join(root, "t1"), filepath.Join(root, "no", "t2")}}
		}, fs.ErrNotExist, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir, o := tc.setup(t, root)
			before := tree(t, root)
			err := Create(dir, o)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) || !strings.HasPrefix(err.Error(), "create pool "+dir+": ") {
				t.Errorf("Create: error %v; want one wrapping %v, starting %q and saying %q", err, tc.want, "create pool "+dir+": ", tc.text)
			}
			if after := tree(t, root); !slices.Equal(before, after) {
				t.Errorf("a refused Create changed the tree:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

func TestCreateNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes in any directory: the permission check cannot fail")
	}
	root := t.TempDir()
	ro := filepath.Join(root, "ro")
	os.Mkdir(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	for _, dir := range []string{ro, filepath.Join(ro, "p")} {
		if err := Create(dir, CreateOptions{}); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "is not writable") {
			t.Errorf("Create(%s) in a read-only directory: error %v; want fs.ErrPermission", dir, err)
		}
	}
}

func TestCreateLayout(t *testing.T) {
	root := t.TempDir()
	ext := []string{filepath.Join(root, "a", "t0"), filepath.Join(root, "b", "t1")}
	os.Mkdir(filepath.Join(root, "a"), 0o755)
	os.MkdirAll(ext[1], 0o755) // exists and is empty: taken
	for _, tc := range []struct {
		name    string
		dir     string
		o       CreateOptions
		targets []string
	}{
		{"default", filepath.Join(root, "p1"), CreateOptions{}, []string{"tgt0", "tgt1", "tgt2", "tgt3"}},
		{"two inside", filepath.Join(root, "p2"), CreateOptions{NTargets: 2}, []string{"tgt0", "tgt1"}},
		{"explicit", filepath.Join(root, "p3"), CreateOptions{Targets: ext}, ext},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Create(tc.dir, tc.o); err != nil {
				t.Fatal(err)
			}
			m, err := readPoolMeta(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Targets, tc.targets) {
				t.Errorf("pool.json targets %q; want %q", m.Targets, tc.targets)
			}
			p, err := Open(tc.dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			info, err := p.Query(context.Background())
			if err != nil || info.UUID != m.UUID || len(info.Targets) != len(tc.targets) || info.Targets[0].TotalBytes == 0 {
				t.Errorf("Query = %+v, %v", info, err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if err := Destroy(tc.dir); err != nil {
				t.Fatal(err)
			}
			for _, path := range append([]string{tc.dir}, ext...) {
				if _, err := os.Stat(path); tc.name == "explicit" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after Destroy, %s: %v; want it gone", path, err)
				}
			}
			if _, err := os.Stat(tc.dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Destroy, %s: %v; want it gone", tc.dir, err)
			}
		})
	}
	if ents, _ := os.ReadDir(root); len(ents) != 2 { // a and b, emptied
		t.Errorf("left in the root: %v", ents)
	}
}

func TestOpenExclusive(t *testing.T) {
	p := newPool(t, 2, Options{})
	want := "another engine (pid " + strconv.Itoa(os.Getpid()) + ") holds"
	_, err := Open(p.Dir(), Options{})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "open pool "+p.Dir()+": ") {
		t.Errorf("second Open: error %v; want ErrBusy saying %q", err, want)
	}
	if err := Destroy(p.Dir()); !errors.Is(err, ErrBusy) || !strings.HasPrefix(err.Error(), "destroy pool ") {
		t.Errorf("Destroy of an open pool: error %v; want ErrBusy", err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir(), poolFile)); err != nil {
		t.Errorf("a refused Destroy removed pool.json: %v", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(dir string)
		want  error
	}{
		{"no pool", func(dir string) { os.Remove(filepath.Join(dir, poolFile)) }, object.ErrNotExist},
		{"bad pool.json", func(dir string) { os.WriteFile(filepath.Join(dir, poolFile), []byte(`{"version":9}`), 0o644) }, object.ErrInvalid},
		{"pool.json of schema version 1", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, poolFile))
			os.WriteFile(filepath.Join(dir, poolFile), regexp.MustCompile(`"version": *2`).ReplaceAll(b, []byte(`"version": 1`)), 0o644)
		}, object.ErrInvalid},
		{"target missing", func(dir string) { os.RemoveAll(filepath.Join(dir, "tgt1")) }, fs.ErrNotExist},
		{"target of another index", func(dir string) {
			os.Rename(filepath.Join(dir, "tgt0"), filepath.Join(dir, "x"))
			os.Rename(filepath.Join(dir, "tgt1"), filepath.Join(dir, "tgt0"))
			os.Rename(filepath.Join(dir, "x"), filepath.Join(dir, "tgt1"))
		}, object.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makePool(t, 2)
			tc.spoil(dir)
			p, err := Open(dir, Options{})
			if err == nil {
				p.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("Open: error %v; want one wrapping %v", err, tc.want)
			}
		})
	}
}

func TestContainers(t *testing.T) {
	ctx := context.Background()
	p := newPool(t, 2, Options{})
	for _, tc := range []struct {
		label string
		props object.ContProps
		want  error
	}{
		{"b", object.ContProps{}, nil},
		{"a", object.ContProps{ChunkSize: 8192, OClass: object.S2}, nil},
		{"b", object.ContProps{}, object.ErrExist},
		{"c", object.ContProps{ChunkSize: 1000}, object.ErrInvalid},
		{"d", object.ContProps{OClass: 3}, object.ErrInvalid},
		{"", object.ContProps{}, object.ErrInvalid},
		{"../x", object.ContProps{}, object.ErrInvalid},
	} {
		if err := p.CreateCont(ctx, tc.label, tc.props); !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("CreateCont(%q, %+v): error %v; want %v", tc.label, tc.props, err, tc.want)
		}
	}
	if got, err := p.ListConts(ctx); err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ListConts = %q, %v; want [a b]", got, err)
	}
	_, err := p.OpenCont(ctx, "nope")
	if !errors.Is(err, object.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenCont of a missing container: error %v; want ErrNotExist", err)
	}
	if err := p.DestroyCont(ctx, "nope"); !errors.Is(err, object.ErrNotExist) {
		t.Errorf("DestroyCont of a missing container: error %v; want ErrNotExist", err)
	}

	c, err := p.OpenContainer(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	a := object.Array{OID: object.NewOID(object.S2, 5000), ChunkSize: 8192}
	if err := c.WriteArray(ctx, a, 0, make([]byte, 3*8192), 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, object.NewOID(object.S1, 6000), "d", "a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	info, err := p.QueryCont(ctx, "a")
	if err != nil || info.Label != "a" || info.Props != (object.ContProps{ChunkSize: 8192, OClass: object.S2, DirOClass: object.S1}) ||
		info.Objects != 2 || info.ArrayBytes < 3*8192 || !isUUID(info.UUID) {
		t.Errorf("QueryCont = %+v, %v; want 2 objects, at least %d array bytes", info, err, 3*8192)
	}
	if err := p.DestroyCont(ctx, "a"); !errors.Is(err, ErrBusy) {
		t.Errorf("DestroyCont of an open container: error %v; want ErrBusy", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close: error %v; want fs.ErrClosed", err)
	}
	if err := c.Put(ctx, a.OID, "d", "a", nil); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Put on a closed handle: error %v; want fs.ErrClosed", err)
	}
	if err := c.WriteArray(ctx, a, 0, []byte("x"), 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("WriteArray on a closed handle: error %v; want fs.ErrClosed", err)
	}
	if err := p.DestroyCont(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	for _, d := range p.contDirs(info.UUID) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after DestroyCont, %s: %v", d, err)
		}
	}
	if _, err := os.Stat(p.contLog(info.UUID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after DestroyCont, its log: %v", err)
	}
	// The label is free again, and the new container is empty.
	c2 := newCont(t, p, "a", object.ContProps{})
	defer c2.Close()
	if n, err := c2.ArraySize(ctx, a); err != nil || n != 0 {
		t.Errorf("a recreated container's array size = %d, %v; want 0", n, err)
	}
}

// TestReopen checks that what a pool holds lasts a Close and an Open: the
// container table, props, KV records, arrays, an Unlink's removal and
// punch (one append) and the OID allocator.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := makePool(t, 3)
	props := object.ContProps{ChunkSize: 4096, OClass: object.S2}
	a := object.Array{ChunkSize: 4096}
	var parent, victim object.Array // an entry "f" of parent named victim; unlinked
	var lastOID object.OID
	for round := range 3 {
		p, err := Open(dir, Options{SyncKV: round == 1})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if round == 0 {
			if err := p.CreateCont(ctx, "c", props); err != nil {
				t.Fatal(err)
			}
		}
		c, err := p.OpenContainer(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Props(); got != props.WithDefaults() {
			t.Errorf("round %d: props %+v; want %+v", round, got, props.WithDefaults())
		}
		oid, err := c.AllocOIDs(ctx, object.SX, 10)
		if err != nil {
			t.Fatal(err)
		}
		if round > 0 && oid.Lo <= lastOID.Lo {
			t.Errorf("round %d: AllocOIDs = %v after a restart; an id of before was %v", round, oid, lastOID)
		}
		lastOID = object.OID{Lo: oid.Lo + 9}
		if round == 0 {
			a.OID = oid
			if err := c.WriteArray(ctx, a, 1000, []byte("array bytes"), 0); err != nil {
				t.Fatal(err)
			}
			if err := c.Put(ctx, oid, "d", "a", []byte("kv")); err != nil {
				t.Fatal(err)
			}
			if err := c.Put(ctx, oid, "gone", "a", []byte("x")); err != nil {
				t.Fatal(err)
			}
			if err := c.Remove(ctx, oid, "gone"); err != nil {
				t.Fatal(err)
			}
			parent, victim = object.Array{OID: object.OID{Hi: oid.Hi, Lo: oid.Lo + 1}}, object.Array{OID: object.OID{Hi: oid.Hi, Lo: oid.Lo + 2}, ChunkSize: 4096}
			if err := c.Put(ctx, parent.OID, "f", "DFS_INODE", []byte("inode")); err != nil {
				t.Fatal(err)
			}
			if err := c.WriteArray(ctx, victim, 0, []byte("held in the log"), 0); err != nil {
				t.Fatal(err)
			}
			if removed, err := c.Unlink(ctx, parent.OID, "f", "DFS_INODE", []byte("inode"), victim.OID); !removed || err != nil {
				t.Fatalf("Unlink = %v, %v", removed, err)
			}
		} else {
			if _, err := c.Get(ctx, parent.OID, "f", "DFS_INODE"); !errors.Is(err, object.ErrNotExist) {
				t.Errorf("round %d: an unlinked entry is back: %v", round, err)
			}
			if n, err := c.ArraySize(ctx, victim); err != nil || n != 0 {
				t.Errorf("round %d: the unlinked entry's array has size %d, %v; want 0", round, n, err)
			}
			if v, err := c.Get(ctx, a.OID, "d", "a"); err != nil || string(v) != "kv" {
				t.Errorf("round %d: Get = %q, %v; want kv", round, v, err)
			}
			if _, err := c.Get(ctx, a.OID, "gone", "a"); !errors.Is(err, object.ErrNotExist) {
				t.Errorf("round %d: a removed dkey is back: %v", round, err)
			}
			buf := make([]byte, 11)
			if n, err := c.ReadArray(ctx, a, 1000, buf, 0); err != nil || string(buf[:n]) != "array bytes" {
				t.Errorf("round %d: ReadArray = %q, %v", round, buf[:n], err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSweep checks that Open removes what a crash inside CreateCont or
// DestroyCont leaves (files of containers the table does not hold) and
// keeps the containers it does hold; and that a container whose log is
// missing fails to open rather than coming back empty.
func TestSweep(t *testing.T) {
	ctx := context.Background()
	dir := makePool(t, 2, "kept", "lost")
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lost, _ := p.contMeta("lost")
	p.Close()
	orphan := newUUID()
	orphans := []string{filepath.Join(dir, contDir, orphan+".log"), filepath.Join(dir, "tgt1", orphan)}
	os.WriteFile(orphans[0], []byte(logMagic), 0o644)
	os.Mkdir(orphans[1], 0o755)
	os.Remove(filepath.Join(dir, contDir, lost.UUID+".log"))

	p, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, o := range orphans {
		if _, err := os.Stat(o); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open left %s: %v", o, err)
		}
	}
	c, err := p.OpenCont(ctx, "kept")
	if err != nil {
		t.Fatalf("a container the table holds: %v", err)
	}
	c.Close()
	if _, err := p.OpenCont(ctx, "lost"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenCont of a container whose log is gone: error %v; want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, contDir, lost.UUID+".log")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenCont made a new log for a container whose log is gone: %v", err)
	}
}

// TestPoolConcurrent races CreateCont of one label (exactly one wins) and
// opens and closes handles of one container from many goroutines (they
// share its log; the last Close closes it).
func TestPoolConcurrent(t *testing.T) {
	ctx := context.Background()
	p := newPool(t, 2, Options{})
	const racers = 8
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { errs[i] = p.CreateCont(ctx, "c", object.ContProps{}) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, object.ErrExist):
			t.Errorf("racer %d: CreateCont: %v; want ErrExist", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d racers created the container; want 1", won)
	}
	clear(errs)
	for i := range racers {
		wg.Go(func() {
			for j := range 20 {
				c, err := p.OpenCont(ctx, "c")
				if err != nil {
					errs[i] = err
					return
				}
				if err := c.Put(ctx, object.NewOID(object.S1, uint64(5000+i)), strconv.Itoa(j), "a", []byte("v")); err != nil {
					errs[i] = err
				}
				if err := c.Close(); err != nil {
					errs[i] = err
				}
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	if len(p.conts) != 0 {
		t.Errorf("after every handle's Close, %d containers are open", len(p.conts))
	}
	c, err := p.OpenCont(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range racers {
		if keys, _, err := c.List(ctx, object.NewOID(object.S1, uint64(5000+i)), "", 0); err != nil || len(keys) != 20 {
			t.Errorf("worker %d's object lists %d dkeys, %v; want 20", i, len(keys), err)
		}
	}
}

// TestPoolClosed checks that a closed pool refuses its calls and its open
// containers' (which opened no files after it closed).
func TestPoolClosed(t *testing.T) {
	ctx := context.Background()
	p, err := Open(makePool(t, 2, "c"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.OpenContainer(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	a := object.Array{OID: object.NewOID(object.SX, 5000), ChunkSize: 4096}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"WriteArray", c.WriteArray(ctx, a, 0, []byte("x"), 0)},
		{"Put", c.Put(ctx, a.OID, "d", "a", nil)},
		{"CreateCont", p.CreateCont(ctx, "d", object.ContProps{})},
		{"OpenCont", func() error { _, err := p.OpenCont(ctx, "c"); return err }()},
		{"DestroyCont", p.DestroyCont(ctx, "c")},
		{"Close again", p.Close()},
	} {
		if !errors.Is(tc.err, fs.ErrClosed) {
			t.Errorf("%s after the pool's Close: error %v; want fs.ErrClosed", tc.name, tc.err)
		}
	}
	if n := p.fds.lru.Len(); n != 0 {
		t.Errorf("%d files open after the pool's Close", n)
	}
	if err := c.Close(); err != nil {
		t.Errorf("closing a handle after its pool: %v", err)
	}
}

func TestHeld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pool")
	if err := Create(dir, CreateOptions{NTargets: 1}); err != nil {
		t.Fatal(err)
	}
	if held, err := Held(dir); held || err != nil {
		t.Fatalf("Held of a closed pool = %v, %v", held, err)
	}
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if held, err := Held(dir); !held || err != nil {
		t.Fatalf("Held of an open pool = %v, %v", held, err)
	}
	info, err := p.Query(t.Context())
	if err != nil || len(info.Targets) != 1 || info.Targets[0].FSID == "" {
		t.Fatalf("Query = %+v, %v: want one target with its file system's id", info, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if held, err := Held(dir); held || err != nil {
		t.Fatalf("Held after Close = %v, %v", held, err)
	}
	if _, err := Held(filepath.Join(dir, "nope")); err == nil {
		t.Fatal("Held of a missing pool succeeded")
	}
}
