package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// step is one call of the round-trip script; it returns what the call
// returned, as text, so that two implementations' transcripts compare.
type step struct {
	name string
	do   func(ctx context.Context, p object.Pool, c object.Container) string
}

// outcome writes an error as its kind, the part that must survive the
// wire (the text gains the engine's address).
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case err == io.EOF:
		return "EOF"
	case errors.Is(err, object.ErrNotExist):
		return "ErrNotExist"
	case errors.Is(err, object.ErrExist):
		return "ErrExist"
	case errors.Is(err, object.ErrInvalid):
		return "ErrInvalid"
	}
	return "error: " + err.Error()
}

// pattern returns n bytes that differ with seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// digest writes a byte slice short: its length and a checksum.
func digest(b []byte) string {
	var h uint32 = 2166136261
	for _, x := range b {
		h = (h ^ uint32(x)) * 16777619
	}
	return fmt.Sprintf("%d bytes #%08x", len(b), h)
}

// bigVal is past the inline limit: a data message.
var bigVal = pattern(100<<10, 3)

func readAt(off int64, n int) func(ctx context.Context, p object.Pool, c object.Container) string {
	return func(ctx context.Context, p object.Pool, c object.Container) string {
		b := make([]byte, n)
		got, err := c.ReadArray(ctx, rpctest.Array, off, b, 0)
		return fmt.Sprintf("%d %s %s", got, outcome(err), digest(b[:got]))
	}
}

func writeAt(off int64, n int, seed byte) func(ctx context.Context, p object.Pool, c object.Container) string {
	return func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.WriteArray(ctx, rpctest.Array, off, pattern(n, seed), 0))
	}
}

func get(dkey, akey string) func(ctx context.Context, p object.Pool, c object.Container) string {
	return func(ctx context.Context, p object.Pool, c object.Container) string {
		v, err := c.Get(ctx, rpctest.KVOID, dkey, akey)
		return outcome(err) + " " + digest(v)
	}
}

func list(anchor string, max int) func(ctx context.Context, p object.Pool, c object.Container) string {
	return func(ctx context.Context, p object.Pool, c object.Container) string {
		keys, next, err := c.List(ctx, rpctest.KVOID, anchor, max)
		return fmt.Sprintf("%s %d keys %q... next %q", outcome(err), len(keys), keys[:min(3, len(keys))], next)
	}
}

// script calls every Pool and Container method, on the happy paths and
// the error ones, with data inline, as messages and past a chunk.
var script = []step{
	{"Props", func(ctx context.Context, p object.Pool, c object.Container) string { return fmt.Sprint(c.Props()) }},
	{"AllocOIDs", func(ctx context.Context, p object.Pool, c object.Container) string {
		o, err := c.AllocOIDs(ctx, object.S2, 10)
		return o.String() + " " + outcome(err)
	}},
	{"AllocOIDs bad class", func(ctx context.Context, p object.Pool, c object.Container) string {
		_, err := c.AllocOIDs(ctx, 3, 1)
		return outcome(err)
	}},
	{"Get missing", get("d", "a")},
	{"Put", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Put(ctx, rpctest.KVOID, "d", "a", []byte("v1")))
	}},
	{"Get", get("d", "a")},
	{"Put replaces", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Put(ctx, rpctest.KVOID, "d", "a", []byte("v2")))
	}},
	{"Get replaced", get("d", "a")},
	{"Get other akey", get("d", "b")},
	{"Insert exists", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Insert(ctx, rpctest.KVOID, "d", "z", []byte("x")))
	}},
	{"Insert big", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Insert(ctx, rpctest.KVOID, "big", "a", bigVal))
	}},
	{"Get big", get("big", "a")},
	{"Put empty", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Put(ctx, rpctest.KVOID, "empty", "", nil))
	}},
	{"Get empty", get("empty", "")},
	{"Put many", func(ctx context.Context, p object.Pool, c object.Container) string {
		for i := range 3000 { // their list is past the inline limit
			if err := c.Put(ctx, rpctest.KVOID, fmt.Sprintf("key-%05d", i), "a", nil); err != nil {
				return outcome(err)
			}
		}
		return "ok"
	}},
	{"List all", list("", 0)},
	{"List max", list("", 5)},
	{"List anchor", list("key-00004", 2)},
	{"Remove", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Remove(ctx, rpctest.KVOID, "d"))
	}},
	{"Remove again", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Remove(ctx, rpctest.KVOID, "d"))
	}},
	{"ArraySize unwritten", func(ctx context.Context, p object.Pool, c object.Container) string {
		n, err := c.ArraySize(ctx, rpctest.Array)
		return fmt.Sprint(n, " ", outcome(err))
	}},
	{"Read unwritten", readAt(0, 10)},
	{"Write small", writeAt(0, 100, 1)},
	{"Write 4k", writeAt(4096, 4096, 2)},
	{"Write 1m", writeAt(1<<20-5, 1<<20, 3)},
	{"Write hole", writeAt(4<<20, 10, 4)},
	{"Write negative", writeAt(-1, 10, 4)},
	{"Write chunk 0", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.WriteArray(ctx, object.Array{OID: rpctest.Array.OID}, 0, []byte("x"), 0))
	}},
	{"Read small", readAt(0, 100)},
	{"Read 4k", readAt(4096, 4096)},
	{"Read 1m", readAt(1<<20-5, 1<<20)},
	{"Read 2m", readAt(0, 2<<20)},
	{"Read hole", readAt(3<<20, 64<<10)},
	{"Read short", readAt(4<<20-10, 64<<10)},
	{"Read short small", readAt(4<<20+5, 100)},
	{"Read past end", readAt(8<<20, 100)},
	{"Read negative", readAt(-5, 100)},
	{"Read empty", readAt(0, 0)},
	{"ArraySize", func(ctx context.Context, p object.Pool, c object.Container) string {
		n, err := c.ArraySize(ctx, rpctest.Array)
		return fmt.Sprint(n, " ", outcome(err))
	}},
	{"SetSize shrink", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.SetSize(ctx, rpctest.Array, 5000))
	}},
	{"Read after shrink", readAt(4000, 2000)},
	{"SetSize negative", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.SetSize(ctx, rpctest.Array, -1))
	}},
	{"SyncArray", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.SyncArray(ctx, rpctest.Array))
	}},
	{"QueryCont", func(ctx context.Context, p object.Pool, c object.Container) string {
		info, err := p.QueryCont(ctx, "c1")
		return fmt.Sprint(info.Label, " uuid ", len(info.UUID), " ", info.Props, " ", info.Objects, " ", info.ArrayBytes, " ", outcome(err))
	}},
	{"Punch", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Punch(ctx, rpctest.Array.OID))
	}},
	{"Punch nothing", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(c.Punch(ctx, object.NewOID(object.S1, 99999)))
	}},
	{"Read punched", readAt(0, 10)},
	{"Query", func(ctx context.Context, p object.Pool, c object.Container) string {
		info, err := p.Query(ctx)
		return fmt.Sprint("uuid ", len(info.UUID), " ", info.Targets, " ", outcome(err))
	}},
	{"CreateCont twice", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(p.CreateCont(ctx, "c1", object.ContProps{}))
	}},
	{"CreateCont bad props", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(p.CreateCont(ctx, "c2", object.ContProps{ChunkSize: 100}))
	}},
	{"CreateCont props", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(p.CreateCont(ctx, "c3", object.ContProps{ChunkSize: 8192, OClass: object.S4}))
	}},
	{"OpenCont props", func(ctx context.Context, p object.Pool, c object.Container) string {
		c3, err := p.OpenCont(ctx, "c3")
		if err != nil {
			return outcome(err)
		}
		defer c3.Close()
		return fmt.Sprint(c3.Props())
	}},
	{"OpenCont missing", func(ctx context.Context, p object.Pool, c object.Container) string {
		_, err := p.OpenCont(ctx, "nope")
		return outcome(err)
	}},
	{"QueryCont missing", func(ctx context.Context, p object.Pool, c object.Container) string {
		_, err := p.QueryCont(ctx, "nope")
		return outcome(err)
	}},
	{"ListConts", func(ctx context.Context, p object.Pool, c object.Container) string {
		ls, err := p.ListConts(ctx)
		return fmt.Sprint(ls, " ", outcome(err))
	}},
	{"DestroyCont", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(p.DestroyCont(ctx, "c3"))
	}},
	{"DestroyCont missing", func(ctx context.Context, p object.Pool, c object.Container) string {
		return outcome(p.DestroyCont(ctx, "c3"))
	}},
	{"ListConts after", func(ctx context.Context, p object.Pool, c object.Container) string {
		ls, err := p.ListConts(ctx)
		return fmt.Sprint(ls, " ", outcome(err))
	}},
}

// transcript runs the script on p, in container "c1".
func transcript(tb testing.TB, p object.Pool) []string {
	ctx := context.Background()
	c := rpctest.OpenCont(tb, p, "c1")
	defer c.Close()
	out := make([]string, len(script))
	for i, s := range script {
		out[i] = s.do(ctx, p, c)
	}
	return out
}

// TestRoundTrip checks that every Pool and Container call through the
// engine returns what the same call on memobj returns.
func TestRoundTrip(t *testing.T) {
	want := transcript(t, memobj.NewPool())
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			got := transcript(t, e.dial(t, 1, fc.opts))
			for i, s := range script {
				if got[i] != want[i] {
					t.Errorf("%s: got %s, memobj %s", s.name, got[i], want[i])
				}
			}
		})
	}
}

// TestErrorText checks that an engine's error keeps its text and names
// the engine, and that fs's sentinels hold as well as object's.
func TestErrorText(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			c := rpctest.OpenCont(t, e.dial(t, 1, fc.opts), "c")
			_, err := c.Get(context.Background(), rpctest.KVOID, "dk", "ak")
			var ee *rpc.EngineError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), e.addr) || !strings.Contains(err.Error(), `"dk"`) {
				t.Fatalf("Get of a missing key: %v, want an EngineError naming %s and the key", err, e.addr)
			}
			if !object.IsNotExist(err) {
				t.Errorf("IsNotExist(%v) = false", err)
			}
		})
	}
}

// TestSharedBuffers checks that the data of calls through arena buffers
// (Client.Alloc) arrives as it does from the heap.
func TestSharedBuffers(t *testing.T) {
	for _, fc := range fabrics() {
		t.Run(fc.name, func(t *testing.T) {
			e := startEngine(t, fc.tr(t), memobj.NewPool())
			cl := e.dial(t, 1, fc.opts)
			c := rpctest.OpenCont(t, cl, "c")
			ctx := context.Background()
			buf := cl.Alloc(1 << 20)
			defer cl.Free(buf)
			copy(buf, pattern(len(buf), 5))
			if err := c.WriteArray(ctx, rpctest.Array, 0, buf, 0); err != nil {
				t.Fatal(err)
			}
			clear(buf)
			if n, err := c.ReadArray(ctx, rpctest.Array, 0, buf, 0); err != nil || n != len(buf) || !bytes.Equal(buf, pattern(len(buf), 5)) {
				t.Fatalf("ReadArray = %d, %v; equal %v", n, err, bytes.Equal(buf, pattern(len(buf), 5)))
			}
		})
	}
}

// probePool opens containers whose array transfers tell whether the
// engine handed them the client's own buffer: a write marks the first
// byte of the bytes it was given, and a read's bytes are looked at in the
// client's buffer before the call answers. A heap buffer is compared by
// address instead: the engine, in this process, would have to be handed
// that very slice, and reading it here would race with the client's copy
// into it, ordered after this read only through shared memory, which the
// race detector does not see. (An arena buffer is outside the Go heap and
// mapped at another address in the engine, so its bytes are compared.)
type probePool struct {
	object.Pool
	client []byte // the client's buffer
	heap   bool   // client is a heap buffer
	seen   chan bool
}

func (p *probePool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := p.Pool.OpenCont(ctx, label)
	return &probeCont{Container: c, p: p}, err
}

type probeCont struct {
	object.Container
	p *probePool
}

func (c *probeCont) WriteArray(ctx context.Context, a object.Array, off int64, b []byte, f object.IOFlags) error {
	err := c.Container.WriteArray(ctx, a, off, b, f)
	b[0] ^= 0xff // shows in the client's buffer only if b is that buffer
	return err
}

func (c *probeCont) ReadArray(ctx context.Context, a object.Array, off int64, b []byte, f object.IOFlags) (int, error) {
	n, err := c.Container.ReadArray(ctx, a, off, b, f)
	if c.p.heap {
		c.p.seen <- n > 0 && &b[0] == &c.p.client[0]
	} else {
		c.p.seen <- bytes.Equal(c.p.client[:n], b[:n])
	}
	return n, err
}

// TestInPlace: over shm, array data from an arena buffer (Client.Alloc)
// moves between the client's buffer and the container with no copy of the
// engine's own (the container gets a view of the client's buffer), with
// or without BulkRMA; from a heap buffer, and over tcp (by RMA: the
// engine reads the client's buffer into its own), it is copied.
func TestInPlace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fc      fabricCase
		arena   bool
		inPlace bool
	}{
		{"shm-rma, arena buffer", fabrics()[1], true, true},
		{"shm-rma, heap buffer", fabrics()[1], false, false},
		{"shm, arena buffer", fabrics()[0], true, true}, // in place without BulkRMA
		{"shm, heap buffer", fabrics()[0], false, false},
		{"tcp-rma, heap buffer", fabrics()[3], false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := &probePool{Pool: memobj.NewPool(), seen: make(chan bool, 1)}
			e := startEngine(t, tc.fc.tr(t), pool)
			cl := e.dial(t, 1, tc.fc.opts)
			c := rpctest.OpenCont(t, cl, "c")
			ctx := context.Background()
			buf := make([]byte, 1<<20)
			if tc.arena {
				buf = cl.Alloc(1 << 20)
				defer cl.Free(buf)
			}
			pool.client, pool.heap = buf, !tc.arena
			want := pattern(len(buf), 7)
			copy(buf, want)
			if err := c.WriteArray(ctx, rpctest.Array, 0, buf, 0); err != nil {
				t.Fatal(err)
			}
			if got := buf[0] != want[0]; got != tc.inPlace {
				t.Errorf("the engine wrote from the client's buffer: %v, want %v", got, tc.inPlace)
			}
			clear(buf)
			n, err := c.ReadArray(ctx, rpctest.Array, 0, buf, 0)
			if err != nil || n != len(buf) || !bytes.Equal(buf, want) {
				t.Fatalf("ReadArray = %d, %v; the bytes written: %v", n, err, bytes.Equal(buf, want))
			}
			if got := <-pool.seen; got != tc.inPlace {
				t.Errorf("the engine read into the client's buffer: %v, want %v", got, tc.inPlace)
			}
		})
	}
}
