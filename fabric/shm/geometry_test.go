//go:build linux

package shm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
)

// TestRingFor checks the ring geometry a hint gives: today's 1 MiB rings
// up to five ranks on a host (bench-coll's 2 and 4 ranks keep their
// speed), then smaller rings down to the 64 KiB floor.
func TestRingFor(t *testing.T) {
	o := DefaultOptions()
	for _, c := range []struct{ local, want int }{
		{0, 1 << 20}, {1, 1 << 20}, {2, 1 << 20}, {4, 1 << 20}, {5, 1 << 20}, {6, 512 << 10},
		{8, 512 << 10}, {16, 256 << 10}, {32, 128 << 10}, {64, 64 << 10}, {256, 64 << 10}, {1024, 64 << 10},
	} {
		if got := o.ringFor(fabric.Hint{LocalRanks: c.local}); got != c.want {
			t.Errorf("ringFor(%d local ranks) = %d, want %d", c.local, got, c.want)
		}
	}
	o.RingBudget = 0
	if got := o.ringFor(fabric.Hint{LocalRanks: 256}); got != o.RingSize {
		t.Errorf("no budget: ringFor(256) = %d, want RingSize %d", got, o.RingSize)
	}
	o = DefaultOptions()
	o.RingSize = 256 << 10
	if got := o.ringFor(fabric.Hint{LocalRanks: 4}); got != 256<<10 {
		t.Errorf("RingSize 256 KiB: ringFor(4) = %d, want 256 KiB (RingSize is the ceiling)", got)
	}
}

// TestDialHintGeometry dials with a hint of 256 local ranks: the pair
// maps 64 KiB rings, both ends shrink the eager limit and pipe chunk that
// a large EagerLimit would not fit, Traits says what the Conns promise,
// and messages of every path still arrive.
func TestDialHintGeometry(t *testing.T) {
	o := DefaultOptions()
	o.EagerLimit, o.PipeChunk, o.ArenaThreshold = 64<<10, 256<<10, 128<<10 // valid for 1 MiB rings, too big for 64 KiB ones
	tr := newTransport(t, o)
	h := fabric.Hint{LocalRanks: 256}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan fabric.Conn, 1)
	go func() {
		c, _, err := ln.Accept(ctx)
		if err != nil {
			t.Error(err)
		}
		acc <- c
	}()
	dc, err := tr.DialHint(ctx, 0, ln.Addr(), h)
	if err != nil {
		t.Fatal(err)
	}
	ac := <-acc
	if ac == nil {
		t.FailNow()
	}
	defer dc.Close()
	defer ac.Close()
	d, a := dc.(*Conn), ac.(*Conn)
	if rs := len(d.lay.ringData(0)); rs != 64<<10 || len(d.lay.mem) != mapSize(64<<10) {
		t.Errorf("ring %d bytes, mapping %d; want 64 KiB rings", rs, len(d.lay.mem))
	}
	tr2 := tr.Traits(h)
	for name, c := range map[string]*Conn{"dialer": d, "listener": a} {
		if c.EagerLimit() != 16<<10 || c.opts.PipeChunk != 32<<10 || tr2.EagerLimit != c.EagerLimit() || !tr2.SharedMemory {
			t.Errorf("%s: eager %d pipe chunk %d, Traits %+v; want 16 KiB, 32 KiB, the same eager limit", name, c.EagerLimit(), c.opts.PipeChunk, tr2)
		}
		if c.Crowded() || tr2.Crowded { // the CPU count is unknown
			t.Errorf("%s: Crowded() = %v, Traits %+v; want not crowded without a CPU count", name, c.Crowded(), tr2)
		}
	}
	// Crowded from more than four ranks per CPU, as the pair's header says.
	for _, tc := range []struct {
		h    fabric.Hint
		want bool
	}{{fabric.Hint{LocalRanks: 8, HostCPUs: 2}, false}, {fabric.Hint{LocalRanks: 9, HostCPUs: 2}, true}, {fabric.Hint{LocalRanks: 9}, false}} {
		if got := tr.Traits(tc.h).Crowded; got != tc.want {
			t.Errorf("Traits(%+v).Crowded = %v; want %v", tc.h, got, tc.want)
		}
	}
	if tr.Traits(fabric.Hint{LocalRanks: 2}).EagerLimit != 64<<10 {
		t.Errorf("Traits(2 ranks) = %+v, want the 64 KiB eager limit of a 1 MiB ring", tr.Traits(fabric.Hint{LocalRanks: 2}))
	}
	for _, n := range []int{0, 100, 16 << 10, 16<<10 + 1, 200 << 10, 3 << 20} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i*7 + n)
		}
		errc := make(chan error, 1)
		go func() { errc <- d.Send(ctx, 5, msg) }()
		got := make([]byte, n)
		if k, err := a.Recv(ctx, 5, got); err != nil || k != n || string(got) != string(msg) {
			t.Fatalf("%d bytes: got %d, %v", n, k, err)
		}
		if err := <-errc; err != nil {
			t.Fatalf("send %d bytes: %v", n, err)
		}
	}
}

// TestMemErr checks that failures to get shared memory for lack of it say
// memory, and others do not pretend to.
func TestMemErr(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
		mem  bool
	}{
		{unix.ENOMEM, "out of memory for 132 KiB of shared memory: mmap: cannot allocate memory", true},
		{unix.ENOSPC, "out of memory for 132 KiB of shared memory: mmap: no space left on device", true},
		{unix.EFAULT, "out of memory for 132 KiB of shared memory: mmap: bad address", true},
		{unix.EBADF, "132 KiB of shared memory: mmap: bad file descriptor", false},
	} {
		err := memErr("mmap", mapSize(64<<10), c.err)
		if err.Error() != c.want || errors.Is(err, errNoMemory) != c.mem || !errors.Is(err, c.err) {
			t.Errorf("memErr(%v) = %q (out of memory: %v), want %q (%v)", c.err, err, errors.Is(err, errNoMemory), c.want, c.mem)
		}
	}
}

// TestMapPopulatedPopulates checks that the rings are resident once
// mapped (what MAP_POPULATE did), and that a mapping failure is worded.
func TestMapPopulatedPopulates(t *testing.T) {
	fd, err := unix.MemfdCreate("test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	size := mapSize(64 << 10)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		t.Fatal(err)
	}
	mem, err := mapPopulated(fd, size, func([]byte) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	for i, v := range resident(t, mem) {
		if !v {
			t.Fatalf("page %d not resident after mapPopulated", i)
		}
	}
	// A crowded pair's: only the header.
	fd2, err := unix.MemfdCreate("test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd2)
	if err := unix.Ftruncate(fd2, int64(size)); err != nil {
		t.Fatal(err)
	}
	mem2, err := mapPopulated(fd2, size, func([]byte) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem2)
	for i, v := range resident(t, mem2) {
		if v != (i == 0) {
			t.Fatalf("crowded: page %d resident %v; want only the header page", i, v)
		}
	}
	if _, err := mapPopulated(-1, size, func([]byte) bool { return true }); err == nil || !strings.Contains(err.Error(), "132 KiB of shared memory: mmap") {
		t.Errorf("mapPopulated(bad fd) = %v", err)
	}
}

// resident reports which pages of mem are in memory (mincore).
func resident(t *testing.T, mem []byte) []bool {
	t.Helper()
	vec := make([]byte, len(mem)/4096)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	r := make([]bool, len(vec))
	for i, v := range vec {
		r[i] = v&1 != 0
	}
	return r
}

// TestCrowdedPair dials with a hint of 256 ranks on 2 CPUs: the header
// says crowded, both waiters sleep after a short spin without yielding,
// the rings are not populated up front, and messages still arrive.
func TestCrowdedPair(t *testing.T) {
	tr := newTransport(t, DefaultOptions())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ln, err := tr.Listen(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan fabric.Conn, 1)
	go func() {
		c, _, _ := ln.Accept(ctx)
		acc <- c
	}()
	dc, err := tr.DialHint(ctx, 0, ln.Addr(), fabric.Hint{LocalRanks: 256, HostCPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	ac := <-acc
	if ac == nil {
		t.Fatal("accept failed")
	}
	defer dc.Close()
	defer ac.Close()
	d, a := dc.(*Conn), ac.(*Conn)
	if d.lay.hdr.crowded != 1 {
		t.Error("header not marked crowded")
	}
	for name, c := range map[string]*Conn{"dialer": d, "listener": a} {
		if c.rcv.w.yield != 0 || c.rcv.w.maxSpin > shortSpin || c.snd.w.yield != 0 {
			t.Errorf("%s: spin %v yield %v; want at most %v and none", name, c.rcv.w.maxSpin, c.rcv.w.yield, shortSpin)
		}
		if !c.Crowded() {
			t.Errorf("%s: Crowded() = false on a crowded pair", name)
		}
	}
	if !tr.Traits(fabric.Hint{LocalRanks: 256, HostCPUs: 2}).Crowded {
		t.Error("Traits(256 ranks, 2 CPUs) not crowded")
	}
	if r := resident(t, d.lay.mem); !r[0] || r[len(r)-1] {
		t.Errorf("header resident %v, last ring page resident %v; want the header only", r[0], r[len(r)-1])
	}
	msg := []byte("crowded")
	if err := d.Send(ctx, 1, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := a.Recv(ctx, 1, buf); err != nil || string(buf[:n]) != "crowded" {
		t.Fatalf("Recv = %q, %v", buf[:n], err)
	}
	if crowded(fabric.Hint{LocalRanks: 8, HostCPUs: 2}) || !crowded(fabric.Hint{LocalRanks: 9, HostCPUs: 2}) || crowded(fabric.Hint{LocalRanks: 9}) {
		t.Error("crowded: want more than 4 ranks per CPU, and false when the CPUs are unknown")
	}
}
