package verbs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/verbs"
)

// rmaPair returns a connected pair over a fake fabric as RMAConns.
func rmaPair(t *testing.T) (a, b fabric.RMAConn) {
	t.Helper()
	tr, _ := fakeTransport(t, verbs.DefaultOptions())
	x, y := fabrictest.Pair(t, tr)
	var ok1, ok2 bool
	a, ok1 = x.(fabric.RMAConn)
	b, ok2 = y.(fabric.RMAConn)
	if !ok1 || !ok2 {
		t.Fatalf("verbs Conns are not fabric.RMAConn: %T, %T", x, y)
	}
	return a, b
}

func TestRMAWriteRead(t *testing.T) {
	a, b := rmaPair(t)
	ctx := t.Context()
	region := make([]byte, 4096)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatalf("Expose: %v", err)
	}
	defer func() {
		if err := release(); err != nil {
			t.Errorf("release: %v", err)
		}
	}()
	for _, tc := range []struct {
		off, n int
	}{{0, 1}, {0, 4096}, {100, 7}, {4095, 1}, {1000, 3000}, {4096, 0}} {
		src := bytes.Repeat([]byte{byte(tc.off + tc.n)}, tc.n)
		if err := a.Write(ctx, key, tc.off, src); err != nil {
			t.Fatalf("Write(off %d, %d bytes): %v", tc.off, tc.n, err)
		}
		if !bytes.Equal(region[tc.off:tc.off+tc.n], src) {
			t.Fatalf("Write(off %d, %d bytes) did not land in the region", tc.off, tc.n)
		}
		dst := make([]byte, tc.n)
		if err := a.Read(ctx, key, tc.off, dst); err != nil {
			t.Fatalf("Read(off %d, %d bytes): %v", tc.off, tc.n, err)
		}
		if !bytes.Equal(dst, src) {
			t.Fatalf("Read(off %d, %d bytes) = %x; want %x", tc.off, tc.n, dst[:min(8, len(dst))], src[:min(8, len(src))])
		}
	}
	// Messages still flow beside RMA.
	if err := a.Send(ctx, 1, []byte("done")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := b.Recv(ctx, 1, buf); err != nil || string(buf[:n]) != "done" {
		t.Fatalf("Recv after RMA = %q, %v", buf[:n], err)
	}
}

func TestRMAOutOfBounds(t *testing.T) {
	a, b := rmaPair(t)
	ctx := t.Context()
	region := make([]byte, 100)
	key, release, err := b.Expose(region)
	if err != nil {
		t.Fatalf("Expose: %v", err)
	}
	defer release()
	for _, tc := range []struct {
		name string
		off  int
		n    int
	}{{"past the end", 90, 11}, {"offset past the end", 101, 0}, {"negative offset", -1, 1}, {"too long", 0, 101}} {
		err := a.Write(ctx, key, tc.off, make([]byte, tc.n))
		if err == nil || !strings.Contains(err.Error(), "outside the peer's 100-byte region") {
			t.Errorf("Write %s (off %d, %d bytes) = %v; want an error naming the region", tc.name, tc.off, tc.n, err)
		}
		err = a.Read(ctx, key, tc.off, make([]byte, tc.n))
		if err == nil || !strings.Contains(err.Error(), "outside the peer's 100-byte region") {
			t.Errorf("Read %s (off %d, %d bytes) = %v; want an error naming the region", tc.name, tc.off, tc.n, err)
		}
	}
	// Refused before posting: the connection still works.
	if err := a.Write(ctx, key, 0, []byte("ok")); err != nil {
		t.Fatalf("Write after the refused ones: %v", err)
	}
	if string(region[:2]) != "ok" {
		t.Fatalf("region = %q", region[:2])
	}
}

func TestRMABadKey(t *testing.T) {
	a, b := rmaPair(t)
	ctx := t.Context()
	key, release, err := b.Expose(make([]byte, 64))
	if err != nil {
		t.Fatalf("Expose: %v", err)
	}
	defer release()
	for _, bad := range [][]byte{nil, key[:10], append([]byte("XXXX"), key[4:]...)} {
		if err := a.Write(ctx, bad, 0, []byte{1}); !errors.Is(err, verbs.ErrKey) {
			t.Errorf("Write with key %x = %v; want ErrKey", bad, err)
		}
	}
	// A well-formed key with a forged rkey reaches the peer's adapter,
	// which refuses it: a remote access error, and RC's QP goes to ERR.
	forged := bytes.Clone(key)
	binary.LittleEndian.PutUint32(forged[4:], binary.LittleEndian.Uint32(key[4:])+1)
	err = a.Write(ctx, forged, 0, []byte{1})
	var wce *verbs.WCError
	if !errors.As(err, &wce) || wce.Status != verbs.WCRemAccessErr {
		t.Fatalf("Write with a forged rkey = %v; want a *WCError with remote access error", err)
	}
	if !strings.HasPrefix(err.Error(), "verbs: RDMA write to rank 1: work completion failed: remote access error (status 10), wr_id 0x3") {
		t.Errorf("Write with a forged rkey: %q", err)
	}
	// The connection is unusable afterwards, and says why.
	err = a.Send(ctx, 1, []byte("x"))
	if !errors.Is(err, fabric.ErrClosed) || !strings.Contains(err.Error(), "remote access error") {
		t.Errorf("Send after the failed write = %v; want ErrClosed naming the remote access error", err)
	}
}

func TestRMAAfterClose(t *testing.T) {
	a, b := rmaPair(t)
	key, release, err := b.Expose(make([]byte, 64))
	if err != nil {
		t.Fatalf("Expose: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Errorf("release after Close = %v; want nil (Close released it)", err)
	}
	if _, _, err := b.Expose(make([]byte, 8)); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Expose after Close = %v; want ErrClosed", err)
	}
	// The peer's region is gone: a's write fails one way or another.
	if err := a.Write(t.Context(), key, 0, []byte{1}); err == nil {
		t.Error("Write into a closed peer's region succeeded")
	}
}
