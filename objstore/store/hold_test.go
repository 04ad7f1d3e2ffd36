package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// extentFiles counts a's extent files over c's targets.
func extentFiles(t *testing.T, c *Container, a object.Array) int {
	t.Helper()
	n := 0
	for i := range c.st.dirs {
		if _, err := os.Stat(c.extentPath(i, a.OID, a.ChunkSize)); err == nil {
			n++
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	return n
}

// readAll reads a whole through c.
func readAll(t *testing.T, c *Container, a object.Array) []byte {
	t.Helper()
	ctx := context.Background()
	size, err := c.ArraySize(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, size+10)
	n, err := c.ReadArray(ctx, a, 0, b, 0)
	if err != io.EOF || int64(n) != size {
		t.Fatalf("ReadArray of %d bytes = %d, %v; want the size %d and io.EOF", len(b), n, err, size)
	}
	return b[:n]
}

// isHeld reports whether c's log holds oid's array.
func isHeld(c *Container, oid object.OID) bool {
	_, ok := c.st.kv.heldSize(oid)
	return ok
}

// openCont opens pool dir and its container label; the caller closes
// both (to reopen them, as a restarted engine does).
func openCont(t *testing.T, dir, label string) (*Pool, *Container) {
	t.Helper()
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.OpenContainer(context.Background(), label)
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	return p, c
}

// TestHold: where an array's bytes live (held in the log, or in extent
// files) after each kind of change, that it reads the same either way,
// and that a held array survives a reopen and a compaction.
func TestHold(t *testing.T) {
	ctx := context.Background()
	type step struct {
		op   string // "write", "direct", "size", "punch"
		off  int64
		n    int
		size int64
	}
	cases := []struct {
		name  string
		steps []step
		held  bool // held in the log at the end
	}{
		{"a small write", []step{{op: "write", off: 0, n: 100}}, true},
		{"a write ending at HoldMax", []step{{op: "write", off: 96, n: HoldMax - 96}}, true},
		{"two small writes with a hole", []step{{op: "write", off: 0, n: 10}, {op: "write", off: 2000, n: 10}}, true},
		{"a write past HoldMax", []step{{op: "write", off: 0, n: HoldMax + 1}}, false},
		{"a small write, then one past HoldMax", []step{{op: "write", off: 0, n: 300}, {op: "write", off: HoldMax - 10, n: 20}}, false},
		{"moved, then small again", []step{{op: "write", off: 0, n: 300}, {op: "write", off: HoldMax, n: 1}, {op: "write", off: 0, n: 5}}, false},
		{"a direct write", []step{{op: "direct", off: 0, n: 4096}}, false},
		{"a small write, then a direct one", []step{{op: "write", off: 0, n: 100}, {op: "direct", off: 0, n: 4096}}, false},
		{"truncated while held", []step{{op: "write", off: 0, n: 3000}, {op: "size", size: 1000}}, true},
		{"extended while held", []step{{op: "write", off: 0, n: 30}, {op: "size", size: HoldMax}}, true},
		{"extended past HoldMax", []step{{op: "write", off: 0, n: 30}, {op: "size", size: HoldMax + 1}}, false},
		{"sized from nothing", []step{{op: "size", size: 700}}, true},
		{"punched while held", []step{{op: "write", off: 0, n: 30}, {op: "punch"}}, false},
		{"punched, then written", []step{{op: "write", off: 0, n: 30}, {op: "punch"}, {op: "write", off: 10, n: 5}}, true},
	}
	dir := makePool(t, 3, "c")
	p, c := openCont(t, dir, "c")
	want := make([][]byte, len(cases))
	arrs := make([]object.Array, len(cases))
	direct := directWorks(dir)
	skip := make([]bool, len(cases))
	for i, tc := range cases {
		a := object.Array{OID: object.NewOID(object.SX, 7000+uint64(i)), ChunkSize: 1024}
		arrs[i] = a
		for _, s := range tc.steps {
			skip[i] = skip[i] || s.op == "direct" && !direct
		}
		if skip[i] {
			t.Logf("%s: not run: O_DIRECT does not work in %s", tc.name, dir)
			continue
		}
		var model []byte
		for j, s := range tc.steps {
			var err error
			b := bytes.Repeat([]byte{byte(i*7 + j + 1)}, s.n)
			switch s.op {
			case "write":
				err = c.WriteArray(ctx, a, s.off, b, 0)
				model = writeBytes(model, s.off, b)
			case "direct":
				buf := aligned(s.n)
				copy(buf, b)
				err = c.WriteArray(ctx, a, s.off, buf, object.Direct)
				model = writeBytes(model, s.off, b)
			case "size":
				err = c.SetSize(ctx, a, s.size)
				model = resizeBytes(model, s.size)
			case "punch":
				err = c.Punch(ctx, a.OID)
				model = nil
			}
			if err != nil {
				t.Fatalf("%s: step %d (%s): %v", tc.name, j, s.op, err)
			}
		}
		want[i] = model
		if got := isHeld(c, a.OID); got != tc.held {
			t.Errorf("%s: held in the log = %v, want %v", tc.name, got, tc.held)
		}
		if n := extentFiles(t, c, a); tc.held && n != 0 {
			t.Errorf("%s: held in the log, and %d extent files", tc.name, n)
		}
		if got := readAll(t, c, a); !bytes.Equal(got, model) {
			t.Errorf("%s: reads %d bytes %.20q..., want %d %.20q...", tc.name, len(got), got, len(model), model)
		}
	}
	check := func(when string) {
		t.Helper()
		for i, tc := range cases {
			if skip[i] {
				continue
			}
			if got := readAll(t, c, arrs[i]); !bytes.Equal(got, want[i]) {
				t.Errorf("%s: %s: reads %d bytes, want %d", when, tc.name, len(got), len(want[i]))
			}
			if got := isHeld(c, arrs[i].OID); got != tc.held {
				t.Errorf("%s: %s: held in the log = %v, want %v", when, tc.name, got, tc.held)
			}
		}
	}
	held := c.st.kv.heldBytes()
	if err := c.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	check("compacted")
	c.Close()
	p.Close()
	p, c = openCont(t, dir, "c")
	defer p.Close()
	defer c.Close()
	check("reopened")
	if got := c.st.kv.heldBytes(); got != held {
		t.Errorf("reopened: %d bytes held, want %d", got, held)
	}
	info, err := p.QueryCont(ctx, "c")
	if err != nil || info.ArrayBytes < held {
		t.Errorf("QueryCont = %+v, %v; want ArrayBytes to count the %d held bytes", info, err, held)
	}
}

// TestHoldBudget: past the container's budget, a new small array gets
// extent files, a held one that would grow past it moves, and one that
// shrinks stays.
func TestHoldBudget(t *testing.T) {
	ctx := context.Background()
	c := newCont(t, newPool(t, 2, Options{}), "c", object.ContProps{})
	defer c.Close()
	c.st.kv.budget = 1000
	arr := func(i uint64) object.Array {
		return object.Array{OID: object.NewOID(object.S1, 9000+i), ChunkSize: 4096}
	}
	steps := []struct {
		a    object.Array
		off  int64
		n    int
		held bool
	}{
		{arr(0), 0, 600, true},
		{arr(1), 0, 300, true},  // 900 held
		{arr(2), 0, 200, false}, // 1100 would pass 1000
		{arr(1), 300, 200, false},
		{arr(0), 0, 100, true}, // rewriting within its length adds nothing
	}
	for i, s := range steps {
		if err := c.WriteArray(ctx, s.a, s.off, bytes.Repeat([]byte{byte(i + 1)}, s.n), 0); err != nil {
			t.Fatal(err)
		}
		if got := isHeld(c, s.a.OID); got != s.held {
			t.Errorf("step %d: %v held = %v, want %v (%d bytes held)", i, s.a.OID, got, s.held, c.st.kv.heldBytes())
		}
	}
	if got := c.st.kv.heldBytes(); got != 600 {
		t.Errorf("%d bytes held at the end, want 600", got)
	}
}

// TestHoldConcurrent: writers to one new array at once, some small enough
// to be held and some not, end with every write in place, whichever of
// them moved the array.
func TestHoldConcurrent(t *testing.T) {
	ctx := context.Background()
	c := newCont(t, newPool(t, 3, Options{}), "c", object.ContProps{})
	defer c.Close()
	const slot, writers = 700, 12 // slots 0-5 end by HoldMax, 6-11 past it
	for round := range 20 {
		a := object.Array{OID: object.NewOID(object.SX, 10000+uint64(round)), ChunkSize: 1024}
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = c.WriteArray(ctx, a, int64(w*slot), bytes.Repeat([]byte{byte(w + 1)}, slot), 0)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, c, a)
		if len(got) != writers*slot {
			t.Fatalf("round %d: %d bytes, want %d", round, len(got), writers*slot)
		}
		for w := range writers {
			if s := got[w*slot : (w+1)*slot]; !bytes.Equal(s, bytes.Repeat([]byte{byte(w + 1)}, slot)) {
				t.Fatalf("round %d: slot %d lost its write (held: %v)", round, w, isHeld(c, a.OID))
			}
		}
	}
}

// TestHoldMoveInterrupted: a container whose log holds an array that also
// has extent files (an engine killed in the middle of a move) opens with
// the log's bytes, and the extent files are gone.
func TestHoldMoveInterrupted(t *testing.T) {
	ctx := context.Background()
	dir := makePool(t, 2, "c")
	p, c := openCont(t, dir, "c")
	a := object.Array{OID: object.NewOID(object.SX, 8000), ChunkSize: 4096}
	if err := c.WriteArray(ctx, a, 0, []byte("held bytes"), 0); err != nil {
		t.Fatal(err)
	}
	// What the move had written before the kill: the held bytes, and
	// part of the write that moved it, in the extent files.
	for i := range c.st.dirs {
		if err := os.WriteFile(c.extentPath(i, a.OID, a.ChunkSize), bytes.Repeat([]byte("x"), 9000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	p.Close()
	p, c = openCont(t, dir, "c")
	defer p.Close()
	defer c.Close()
	if got := readAll(t, c, a); string(got) != "held bytes" {
		t.Errorf("after the interrupted move: %q, want the log's bytes", got)
	}
	if n := extentFiles(t, c, a); n != 0 {
		t.Errorf("%d extent files left", n)
	}
	matches, _ := filepath.Glob(filepath.Join(c.st.dirs[0], "*"))
	if len(matches) != 0 {
		t.Errorf("target 0 holds %q", matches)
	}
}
