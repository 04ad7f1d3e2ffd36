package client_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// benchTarget is a container to measure and how to get a buffer for it.
type benchTarget struct {
	c     object.Container
	alloc func(n int) []byte
}

// BenchmarkOps measures one call's round trip through the engine, over
// each transport, against the same call on memobj directly. Array
// figures are per transfer, with b.SetBytes; "arena" takes the client's
// buffer from Client.Alloc.
func BenchmarkOps(b *testing.B) {
	targets := []struct {
		name string
		mk   func(b *testing.B) benchTarget
	}{
		{"memobj", func(b *testing.B) benchTarget {
			return benchTarget{rpctest.OpenCont(b, memobj.NewPool(), "c"), func(n int) []byte { return make([]byte, n) }}
		}},
	}
	for _, fc := range fabrics()[:3] {
		for _, arena := range []bool{false, true} {
			name := fc.name
			if arena {
				if fc.name == "tcp" {
					continue // tcp has no allocator
				}
				name += "-arena"
			}
			targets = append(targets, struct {
				name string
				mk   func(b *testing.B) benchTarget
			}{name, func(b *testing.B) benchTarget {
				cl := startEngine(b, fc.tr(b), memobj.NewPool()).dial(b, 1, fc.opts)
				alloc := func(n int) []byte { return make([]byte, n) }
				if arena {
					alloc = cl.Alloc
				}
				return benchTarget{rpctest.OpenCont(b, cl, "c"), alloc}
			}})
		}
	}
	for _, fc := range fabrics()[:2] {
		for _, arena := range []bool{false, true} {
			name := "proc-" + fc.name
			if arena {
				name += "-arena"
			}
			targets = append(targets, struct {
				name string
				mk   func(b *testing.B) benchTarget
			}{name, func(b *testing.B) benchTarget {
				_, _, addr := startEngineProcess(b)
				o := fc.opts
				o.Rank = 1
				cl, err := client.Dial(context.Background(), shmTransport(b), addr, o)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { cl.Close() })
				alloc := func(n int) []byte { return make([]byte, n) }
				if arena {
					alloc = cl.Alloc
				}
				return benchTarget{rpctest.OpenCont(b, cl, "c"), alloc}
			}})
		}
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			t := tg.mk(b)
			defer t.c.Close()
			b.Run("Get", func(b *testing.B) { benchGet(b, t.c) })
			b.Run("InsertRemove", func(b *testing.B) { benchInsertRemove(b, t.c) })
			b.Run("InsertRemovePunch", func(b *testing.B) { benchUnlink(b, t.c, false) })
			if _, ok := t.c.(object.Unlinker); ok {
				b.Run("InsertUnlink", func(b *testing.B) { benchUnlink(b, t.c, true) })
			}
			for _, size := range []int{4 << 10, 1 << 20} {
				buf := t.alloc(size)
				b.Run("Write"+sizeName(size), func(b *testing.B) { benchWrite(b, t.c, buf) })
				b.Run("Read"+sizeName(size), func(b *testing.B) { benchRead(b, t.c, buf) })
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return itoa(n>>20) + "MiB"
	}
	return itoa(n>>10) + "KiB"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// benchGet gets a 64-byte value, the size of a DFS inode.
func benchGet(b *testing.B, c object.Container) {
	ctx := context.Background()
	if err := c.Put(ctx, rpctest.KVOID, "file", "DFS_INODE", make([]byte, 64)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Get(ctx, rpctest.KVOID, "file", "DFS_INODE"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInsertRemove creates and removes one entry, as mdtest's create
// and unlink phases do to a directory.
func benchInsertRemove(b *testing.B, c object.Container) {
	ctx := context.Background()
	val := make([]byte, 64)
	for b.Loop() {
		if err := c.Insert(ctx, rpctest.KVOID, "entry", "DFS_INODE", val); err != nil {
			b.Fatal(err)
		}
		if err := c.Remove(ctx, rpctest.KVOID, "entry"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchUnlink creates an entry and a 4 KiB array, then removes the entry
// and punches the array, as the namespace unlinks an mdtest file: with
// Remove and Punch, or with one Unlink of the entry it knows (RemoveIf)
// when pair is true.
func benchUnlink(b *testing.B, c object.Container, pair bool) {
	ctx := context.Background()
	val := make([]byte, 64)
	data := make([]byte, 4096)
	for b.Loop() {
		if err := c.Insert(ctx, rpctest.KVOID, "entry", "DFS_INODE", val); err != nil {
			b.Fatal(err)
		}
		if err := c.WriteArray(ctx, rpctest.Array, 0, data, 0); err != nil {
			b.Fatal(err)
		}
		if pair {
			if removed, err := c.(object.Unlinker).Unlink(ctx, rpctest.KVOID, "entry", "DFS_INODE", val, rpctest.Array.OID); !removed || err != nil {
				b.Fatal(removed, err)
			}
			continue
		}
		if err := c.Remove(ctx, rpctest.KVOID, "entry"); err != nil {
			b.Fatal(err)
		}
		if err := c.Punch(ctx, rpctest.Array.OID); err != nil {
			b.Fatal(err)
		}
	}
}

func benchWrite(b *testing.B, c object.Container, buf []byte) {
	ctx := context.Background()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if err := c.WriteArray(ctx, rpctest.Array, 0, buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRead(b *testing.B, c object.Container, buf []byte) {
	ctx := context.Background()
	if err := c.WriteArray(ctx, rpctest.Array, 0, buf, 0); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if n, err := c.ReadArray(ctx, rpctest.Array, 0, buf, 0); err != nil || n != len(buf) {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkFabricFloor is the transports' own round trip of a message the
// size of a Get's request and reply, in one process: the floor under
// BenchmarkOps's in-process Get.
func BenchmarkFabricFloor(b *testing.B) {
	for _, fc := range []fabricCase{fabrics()[0], fabrics()[2]} {
		b.Run(fc.name, func(b *testing.B) {
			tr := fc.tr(b)
			fabrictest.BenchRoundTrip(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) }, 128)
		})
	}
}

// BenchmarkHandoff is the design a Client does not use, measured against
// the one it does: a round trip of a Get-sized message where the reply is
// received by a goroutine of its own and handed to the caller over a
// channel (what a Client with calls in flight together would do), against
// the caller receiving it itself (lock step, BenchmarkFabricFloor's loop).
func BenchmarkHandoff(b *testing.B) {
	for _, fc := range []fabricCase{fabrics()[0], fabrics()[2]} {
		for _, handoff := range []bool{false, true} {
			name := fc.name + "/lockstep"
			if handoff {
				name = fc.name + "/handoff"
			}
			b.Run(name, func(b *testing.B) { benchHandoff(b, fc.tr(b), handoff) })
		}
	}
}

func benchHandoff(b *testing.B, tr fabric.Transport, handoff bool) {
	x, y := fabrictest.Pair(b, tr)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { // the engine: echo every request
		buf := make([]byte, 256)
		for {
			n, err := y.Recv(ctx, rpc.TagReq, buf)
			if err != nil || y.Send(ctx, rpc.TagRep, buf[:n]) != nil {
				return
			}
		}
	})
	replies := make(chan int)
	if handoff {
		wg.Go(func() { // the client's receiver
			buf := make([]byte, 256)
			for {
				n, err := x.Recv(ctx, rpc.TagRep, buf)
				if err != nil {
					return
				}
				select {
				case replies <- n:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	req, buf := make([]byte, 128), make([]byte, 256)
	for b.Loop() {
		if err := x.Send(ctx, rpc.TagReq, req); err != nil {
			b.Fatal(err)
		}
		if handoff {
			<-replies
		} else if _, err := x.Recv(ctx, rpc.TagRep, buf); err != nil {
			b.Fatal(err)
		}
	}
}
