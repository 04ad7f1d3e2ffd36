package namespace

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// newCont returns an empty in-memory container with props.
func newCont(t testing.TB, props object.ContProps) *memobj.Container {
	t.Helper()
	c, err := memobj.New(props)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newFS mounts a fresh in-memory container.
func newFS(t testing.TB, opts Options) *FS {
	t.Helper()
	f, err := Mount(context.Background(), newCont(t, object.ContProps{ChunkSize: 4096}), opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMountFormats(t *testing.T) {
	ctx := context.Background()
	cont := newCont(t, object.ContProps{ChunkSize: 8192, OClass: object.S2, DirOClass: object.S4})
	f, err := Mount(ctx, cont, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Superblock{Version: SBVersion, Layout: LayoutVersion, ChunkSize: 8192, OClass: object.S2, DirOClass: object.S4}
	if got := f.Superblock(); got != want {
		t.Errorf("superblock %+v, want %+v", got, want)
	}
	if f.root.OID != object.NewOID(object.S4, 1) {
		t.Errorf("root %v, want 4000000000000.1", f.root.OID)
	}
	if err := f.Mkdir(ctx, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	again, err := Mount(ctx, cont, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if in, err := again.Lookup(ctx, "/d"); err != nil || !in.IsDir() {
		t.Errorf("second mount: lookup /d: %+v, %v", in, err)
	}
}

func TestMountConcurrent(t *testing.T) {
	const n = 8
	cont := newCont(t, object.ContProps{})
	var wg sync.WaitGroup
	mounts := make([]*FS, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { mounts[i], errs[i] = Mount(context.Background(), cont, Options{}) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("mount %d: %v", i, errs[i])
		}
		if mounts[i].root != mounts[0].root || mounts[i].sb != mounts[0].sb {
			t.Errorf("mount %d sees root %+v, superblock %+v; mount 0 %+v, %+v", i, mounts[i].root, mounts[i].sb, mounts[0].root, mounts[0].sb)
		}
	}
	// What one mount creates, every other sees.
	ctx := context.Background()
	if _, err := mounts[0].Create(ctx, "/f", 0o644, Excl); err != nil {
		t.Fatal(err)
	}
	if _, err := mounts[n-1].Stat(ctx, "/f"); err != nil {
		t.Error(err)
	}
}

func TestMountRefused(t *testing.T) {
	put16 := func(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
	cases := []struct {
		name  string
		akey  string
		val   []byte
		ro    bool
		want  error
		wants string
	}{
		{name: "read-only, not formatted", ro: true, want: ErrNotFormatted},
		{name: "wrong magic", akey: akMagic, val: binary.LittleEndian.AppendUint64(nil, 0xbad), want: object.ErrInvalid, wants: "magic"},
		{name: "short magic", akey: akMagic, val: []byte{1}, want: object.ErrInvalid, wants: "DFS_MAGIC"},
		{name: "newer superblock", akey: akSBVersion, val: put16(SBVersion + 1), want: object.ErrInvalid, wants: "superblock version 2"},
		{name: "newer layout", akey: akLayout, val: put16(LayoutVersion + 1), want: object.ErrInvalid, wants: "layout version 2"},
		{name: "bad class", akey: akOClass, val: put16(3), want: object.ErrInvalid, wants: "class"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cont := newCont(t, object.ContProps{})
			if c.akey != "" {
				if _, err := Mount(ctx, cont, Options{}); err != nil {
					t.Fatal(err)
				}
				if err := cont.Put(ctx, SuperblockOID(), sbDkey, c.akey, c.val); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Mount(ctx, cont, Options{ReadOnly: c.ro})
			if !errors.Is(err, c.want) || !containsAll(err, "mount DFS: ", c.wants) {
				t.Errorf("mount: %v; want an error wrapping %v saying %q", err, c.want, c.wants)
			}
		})
	}
}

func TestMountOptions(t *testing.T) {
	ctx := context.Background()
	f := newFS(t, Options{ChunkSize: 3 * 4096, OClass: object.S1, DirOClass: object.S2})
	fl, err := f.Create(ctx, "/f", 0o644, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl.ChunkSize() != 3*4096 || fl.OID().Class() != object.S1 {
		t.Errorf("file chunk size %d class %v, want 12288 S1", fl.ChunkSize(), fl.OID().Class())
	}
	if err := f.Mkdir(ctx, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	if in, err := f.Lookup(ctx, "/d"); err != nil || in.OClass != object.S2 {
		t.Errorf("directory %+v, %v; want class S2", in, err)
	}
	if _, err := Mount(ctx, f.Container(), Options{ChunkSize: 100}); !errors.Is(err, object.ErrInvalid) {
		t.Errorf("mount with chunk size 100: %v, want ErrInvalid", err)
	}
}

func TestMountCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cont := newCont(t, object.ContProps{})
	// Another mount won the race to write the root's entry but has not
	// written the superblock: this one waits, until its context ends.
	if err := cont.Insert(context.Background(), SuperblockOID(), rootDkey, inodeAkey, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Mount(ctx, cont, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("mount: %v, want context.Canceled", err)
	}
}
