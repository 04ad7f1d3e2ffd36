//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
)

// TestRMA: a write lands in the peer's exposed buffer at its offset, a
// read brings it back, and out-of-bounds or foreign keys move nothing.
func TestRMA(t *testing.T) {
	a, b := pair(t, newTransport(t, DefaultOptions()))
	ctx := context.Background()
	region := make([]byte, 64<<10)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatalf("Expose: %v", err)
	}
	defer release()
	msg := bytes.Repeat([]byte("rma!"), 1000)
	if err := a.Write(ctx, key, 100, msg); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(region[100:100+len(msg)], msg) || region[99] != 0 || region[100+len(msg)] != 0 {
		t.Fatal("the write did not land where it was aimed, or spilled")
	}
	back := make([]byte, len(msg))
	if err := a.Read(ctx, key, 100, back); err != nil || !bytes.Equal(back, msg) {
		t.Fatalf("Read: %v, equal %v", err, bytes.Equal(back, msg))
	}
	for _, tc := range []struct {
		name string
		key  []byte
		off  int
		n    int
		want string
	}{
		{"past the end", key, len(region) - 10, 11, "past the end of the peer's 65536-byte region"},
		{"negative offset", key, -1, 1, "past the end"},
		{"forged key", append([]byte{0, 0, 0, 0}, key[4:]...), 0, 1, "a key of 20 bytes that Expose did not make"},
		{"short key", key[:8], 0, 1, "a key of 8 bytes"},
	} {
		err := a.Write(ctx, tc.key, tc.off, make([]byte, tc.n))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if region[len(region)-1] != 0 {
		t.Error("a refused write moved bytes")
	}
	a.Close()
	if err := a.Write(ctx, key, 0, []byte{1}); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

// TestView: a region exposed from this side's arena is reached in place
// through the peer's View (writes through the view land in the buffer
// itself) and is exposed even where the peer may not attach to this
// process; a heap buffer has no view, and without that permission is not
// exposed at all.
func TestView(t *testing.T) {
	tr := newTransport(t, DefaultOptions())
	d, a := pair(t, tr)
	buf := tr.Alloc(64 << 10)
	defer tr.Free(buf)
	heap := make([]byte, 64<<10)
	if !d.PeerViews(buf) || d.PeerViews(heap) {
		t.Fatalf("PeerViews: arena buffer %v, heap buffer %v; want true, false", d.PeerViews(buf), d.PeerViews(heap))
	}
	d.peerCanAccess = false // as under kernel.yama.ptrace_scope
	key, release, err := d.Expose(buf)
	if err != nil {
		t.Fatalf("Expose of an arena buffer without attach permission: %v", err)
	}
	defer release()
	v := a.View(key, 4096, 100)
	if len(v) != 100 {
		t.Fatalf("View of 100 bytes at 4096 = %d bytes, want 100", len(v))
	}
	copy(v, "through the view")
	if got := string(buf[4096 : 4096+16]); got != "through the view" {
		t.Errorf("the buffer holds %q after a write through the view", got)
	}
	if v := a.View(key, 64<<10-10, 100); v != nil {
		t.Errorf("View past the region's end = %d bytes, want nil", len(v))
	}
	if _, _, err := d.Expose(heap); err == nil {
		t.Errorf("Expose of a heap buffer without attach permission: no error")
	}
	d.peerCanAccess = true
	hkey, hrel, err := d.Expose(heap)
	if err != nil {
		t.Fatal(err)
	}
	defer hrel()
	if v := a.View(hkey, 0, 100); v != nil {
		t.Errorf("View of a heap buffer = %d bytes, want nil (not in the arena)", len(v))
	}
}
