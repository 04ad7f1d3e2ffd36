//go:build linux

package shm

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// testRing maps a fresh pair layout of ringSize-byte rings (anonymous
// shared memory, as a memfd would be) and returns the two ends of ring 0.
func testRing(t *testing.T, ringSize int) (*producer, *consumer) {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, mapSize(ringSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	initHeader(mem, ringSize, DefaultCMAChunk, false)
	lay, err := newLayout(mem)
	if err != nil {
		t.Fatal(err)
	}
	p := newProducer(&lay.hdr.rings[0], lay.ringData(0))
	c := newConsumer(&lay.hdr.rings[0], lay.ringData(0))
	return &p, &c
}

// fill returns n bytes of a pattern that depends on seed, 8 bytes at a
// time (the race detector instruments every store).
func fill(n int, seed uint64) []byte {
	b := make([]byte, n+7)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := 0; i < n; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	return b[:n]
}

// writeEager and readEager move one eager record the way Send and Recv do.
func writeEager(p *producer, tag uint32, b []byte) bool {
	need := recLen(len(b))
	if !p.room(need) {
		return false
	}
	p.putRecord(record{kind: kindEager, tag: tag, size: uint64(len(b))})
	p.put(hdrSize, b)
	p.publish(need)
	return true
}

func readEager(t *testing.T, c *consumer) (record, []byte, bool) {
	if !c.has(hdrSize) {
		return record{}, nil, false
	}
	r := c.record()
	if r.kind != kindEager {
		t.Fatalf("record kind %d, want eager", r.kind)
	}
	if !c.has(recLen(int(r.size))) {
		t.Fatalf("eager record of %d bytes published in part: %d bytes available", r.size, c.avail())
	}
	b := make([]byte, r.size)
	c.get(hdrSize, b)
	c.release(recLen(int(r.size)))
	return r, b, true
}

func TestRecLen(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want uint32
	}{{0, 64}, {1, 64}, {48, 64}, {49, 128}, {112, 128}, {113, 192}, {1 << 20, 1<<20 + 64}} {
		if got := recLen(tc.n); got != tc.want {
			t.Errorf("recLen(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestRingWrap sends records of odd sizes through a small ring many times
// around, so that payloads wrap at every possible offset, and checks every
// byte.
func TestRingWrap(t *testing.T) {
	const ringSize = 64 << 10
	p, c := testRing(t, ringSize)
	sizes := []int{0, 1, 15, 16, 47, 48, 49, 63, 64, 65, 1000, 4095, 4097, 12345, ringSize / 4}
	moved := 0
	for i := 0; moved < 20*ringSize; i++ {
		size := sizes[i%len(sizes)]
		want := fill(size, uint64(i))
		if !writeEager(p, uint32(i), want) {
			t.Fatalf("record %d: no room in an empty ring", i)
		}
		r, got, ok := readEager(t, c)
		if !ok {
			t.Fatalf("record %d: not visible after publish", i)
		}
		if r.tag != uint32(i) || !bytes.Equal(got, want) {
			t.Fatalf("record %d (%d bytes at ring offset %d): got tag %d and different bytes", i, size, (p.head-recLen(size))%ringSize, r.tag)
		}
		moved += int(recLen(size))
	}
	if p.head != c.tail || p.head != p.ctl.head.v.Load() || c.tail != c.ctl.tail.v.Load() {
		t.Errorf("indices disagree: producer head %d, consumer tail %d, shared %d/%d", p.head, c.tail, p.ctl.head.v.Load(), c.ctl.tail.v.Load())
	}
}

// TestRingIndexWrap starts the free-running indices just below 2^32 so
// that they overflow during the test.
func TestRingIndexWrap(t *testing.T) {
	p, c := testRing(t, 64<<10)
	start := uint32(1<<32 - 3*recAlign)
	p.ctl.head.v.Store(start)
	p.ctl.tail.v.Store(start)
	p.head, p.tail, c.head, c.tail = start, start, start, start
	for i := range 100 {
		want := fill(1000, uint64(i))
		if !writeEager(p, 9, want) {
			t.Fatalf("record %d: no room", i)
		}
		if _, got, ok := readEager(t, c); !ok || !bytes.Equal(got, want) {
			t.Fatalf("record %d across the index overflow: ok %v, content differs", i, ok)
		}
	}
	if p.head >= start {
		t.Fatalf("head %d did not wrap past 2^32", p.head)
	}
}

// TestRingFull fills the ring, checks that the producer sees no room for
// one more record, and that room comes back exactly as the consumer
// releases.
func TestRingFull(t *testing.T) {
	const ringSize = 64 << 10
	p, c := testRing(t, ringSize)
	rec := make([]byte, 1024-hdrSize) // exactly 1 KiB of ring per record
	n := 0
	for writeEager(p, uint32(n), rec) {
		n++
	}
	if n != ringSize/1024 {
		t.Fatalf("ring of %d bytes took %d 1-KiB records, want %d", ringSize, n, ringSize/1024)
	}
	if p.room(1) {
		t.Fatalf("full ring reports room")
	}
	if _, _, ok := readEager(t, c); !ok {
		t.Fatal("full ring has nothing to read")
	}
	if !p.room(1024) || p.room(1025) {
		t.Fatalf("after one release: room(1024) = %v, room(1025) = %v; want true, false", p.room(1024), p.room(1025))
	}
	for i := 1; i < n; i++ {
		if r, _, ok := readEager(t, c); !ok || r.tag != uint32(i) {
			t.Fatalf("record %d: ok %v tag %d", i, ok, r.tag)
		}
	}
	if _, _, ok := readEager(t, c); ok {
		t.Fatal("empty ring returned a record")
	}
	if !p.room(ringSize) {
		t.Fatal("empty ring has no room for its whole size")
	}
}

// TestRingConcurrent runs a producer and a consumer goroutine over one
// ring with random record sizes, under backpressure, and checks every
// record. Under -race it also checks that the ring's only synchronization,
// the atomic indices, orders the payload copies.
func TestRingConcurrent(t *testing.T) {
	const ringSize = 64 << 10
	p, c := testRing(t, ringSize)
	n := 5000
	if testing.Short() {
		n = 1000
	}
	done := make(chan error, 1)
	go func() {
		r := rand.New(rand.NewPCG(1, 2))
		for i := range n {
			b := fill(r.IntN(ringSize/4), uint64(i))
			for !writeEager(p, uint32(i), b) {
				runtime.Gosched()
			}
		}
		done <- nil
	}()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		want := fill(r.IntN(ringSize/4), uint64(i))
		var rec record
		var got []byte
		for ok := false; !ok; {
			rec, got, ok = readEager(t, c)
			if !ok {
				runtime.Gosched()
			}
		}
		if rec.tag != uint32(i) || !bytes.Equal(got, want) {
			t.Fatalf("record %d: tag %d, %d bytes, content equal %v", i, rec.tag, len(got), bytes.Equal(got, want))
		}
	}
	<-done
}
