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
