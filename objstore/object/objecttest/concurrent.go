package objecttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

func testAllocOIDs(e *env) {
	prevEnd := uint64(0)
	for _, tc := range []struct {
		class object.Class
		n     int
	}{{object.S1, 1}, {object.S1, 1}, {object.SX, 10}, {object.S2, 1000}, {object.S4, 3}} {
		first, err := e.c.AllocOIDs(e.ctx, tc.class, tc.n)
		if err != nil {
			e.t.Fatalf("AllocOIDs(%v, %d): %v", tc.class, tc.n, err)
		}
		if first.Class() != tc.class {
			e.t.Errorf("AllocOIDs(%v, %d) = %v of class %v", tc.class, tc.n, first, first.Class())
		}
		if first.Lo < prevEnd {
			e.t.Errorf("AllocOIDs(%v, %d) = %v overlaps the ids handed out before (up to %d)", tc.class, tc.n, first, prevEnd)
		}
		prevEnd = first.Lo + uint64(tc.n)
	}
	for _, tc := range []struct {
		name  string
		class object.Class
		n     int
	}{{"n = 0", object.S1, 0}, {"n < 0", object.S1, -1}, {"class 0", 0, 1}, {"class S3", 3, 1}} {
		if _, err := e.c.AllocOIDs(e.ctx, tc.class, tc.n); !errors.Is(err, object.ErrInvalid) {
			e.t.Errorf("AllocOIDs with %s: error %v; want ErrInvalid", tc.name, err)
		}
	}
}

func testAllocOIDsConcurrent(e *env) {
	const workers, calls = 8, 50
	type span struct{ first, n uint64 }
	spans := make([][]span, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				n := 1 + (w+i)%3
				o, err := e.c.AllocOIDs(e.ctx, object.S1, n)
				if err != nil {
					errs[w] = err
					return
				}
				spans[w] = append(spans[w], span{o.Lo, uint64(n)})
			}
		})
	}
	wg.Wait()
	var all []span
	for w := range workers {
		if errs[w] != nil {
			e.t.Fatalf("worker %d: AllocOIDs: %v", w, errs[w])
		}
		all = append(all, spans[w]...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].first < all[j].first })
	for i := 1; i < len(all); i++ {
		if all[i].first < all[i-1].first+all[i-1].n {
			e.t.Errorf("ids %d+%d and %d+%d overlap", all[i-1].first, all[i-1].n, all[i].first, all[i].n)
		}
	}
}

// testConcurrent drives one container from several goroutines at once:
// each works its own object's KV records and array, and all of them write
// disjoint ranges of one shared array.
func testConcurrent(e *env) {
	const workers, rounds = 4, 30
	shared := e.array(object.SX)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = e.worker(w, rounds, shared) })
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			e.t.Errorf("worker %d: %v", w, err)
		}
	}
	size := int64(workers * rounds * 1000)
	e.wantSize(shared, size)
	for w := range workers {
		for r := range rounds {
			off := int64((r*workers + w) * 1000)
			if got := e.read(shared, off, 1000, size); !bytes.Equal(got, pattern(byte(w), off, 1000)) {
				e.t.Errorf("shared array: worker %d's round %d differs", w, r)
			}
		}
	}
}

// worker is one goroutine of testConcurrent; it returns the first thing
// that went wrong.
func (e *env) worker(w, rounds int, shared object.Array) error {
	ctx := e.ctx
	oid, err := e.c.AllocOIDs(ctx, object.S2, 1)
	if err != nil {
		return err
	}
	a := object.Array{OID: oid, ChunkSize: e.c.Props().ChunkSize}
	for r := range rounds {
		dkey := fmt.Sprintf("w%d-r%d", w, r)
		val := []byte(dkey)
		if err := e.c.Insert(ctx, oid, dkey, "DFS_INODE", val); err != nil {
			return fmt.Errorf("insert %s: %w", dkey, err)
		}
		if got, err := e.c.Get(ctx, oid, dkey, "DFS_INODE"); err != nil || !bytes.Equal(got, val) {
			return fmt.Errorf("get %s = %q, %v", dkey, got, err)
		}
		if r%3 == 0 {
			if err := e.c.Remove(ctx, oid, dkey); err != nil {
				return fmt.Errorf("remove %s: %w", dkey, err)
			}
		}
		if _, _, err := e.c.List(ctx, oid, "", 5); err != nil {
			return fmt.Errorf("list: %w", err)
		}
		off := int64(r * 3000)
		if err := e.c.WriteArray(ctx, a, off, pattern(byte(w), off, 3000), 0); err != nil {
			return fmt.Errorf("write own array: %w", err)
		}
		p := make([]byte, 3000)
		if n, err := e.c.ReadArray(ctx, a, off, p, 0); err != nil || n != 3000 || !bytes.Equal(p, pattern(byte(w), off, 3000)) {
			return fmt.Errorf("read own array at %d: %d, %v (same bytes: %v)", off, n, err, bytes.Equal(p, pattern(byte(w), off, 3000)))
		}
		soff := int64((r*4 + w) * 1000)
		if err := e.c.WriteArray(ctx, shared, soff, pattern(byte(w), soff, 1000), 0); err != nil {
			return fmt.Errorf("write shared array: %w", err)
		}
		if _, err := e.c.ArraySize(ctx, shared); err != nil {
			return fmt.Errorf("size of the shared array: %w", err)
		}
	}
	keys, _, err := e.c.List(ctx, oid, "", 0)
	if err != nil {
		return err
	}
	if want := rounds - (rounds+2)/3; len(keys) != want {
		return fmt.Errorf("list after the rounds: %d dkeys; want %d", len(keys), want)
	}
	return nil
}

func testCanceled(e *env) {
	a := e.array(object.S1)
	e.put(a.OID, "d", "a", []byte("v"))
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	p := make([]byte, 10)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"AllocOIDs", func() error { _, err := e.c.AllocOIDs(ctx, object.S1, 1); return err }()},
		{"Put", e.c.Put(ctx, a.OID, "d", "b", p)},
		{"Insert", e.c.Insert(ctx, a.OID, "new", "a", p)},
		{"Get", func() error { _, err := e.c.Get(ctx, a.OID, "d", "a"); return err }()},
		{"Remove", e.c.Remove(ctx, a.OID, "d")},
		{"List", func() error { _, _, err := e.c.List(ctx, a.OID, "", 0); return err }()},
		{"WriteArray", e.c.WriteArray(ctx, a, 0, p, 0)},
		{"ReadArray", func() error { _, err := e.c.ReadArray(ctx, a, 0, p, 0); return err }()},
		{"ArraySize", func() error { _, err := e.c.ArraySize(ctx, a); return err }()},
		{"SetSize", e.c.SetSize(ctx, a, 100)},
		{"SyncArray", e.c.SyncArray(ctx, a)},
		{"Punch", e.c.Punch(ctx, a.OID)},
	} {
		if !errors.Is(tc.err, context.Canceled) {
			e.t.Errorf("%s with a canceled context: error %v; want context.Canceled", tc.name, tc.err)
		}
	}
	// A call refused for its context changed nothing.
	if got := e.get(a.OID, "d", "a"); string(got) != "v" {
		e.t.Errorf("after calls with a canceled context, Get = %q; want %q", got, "v")
	}
	e.wantSize(a, 0)
}
