package pmi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
)

// openFDs counts this process's open descriptors, or -1 where /proc is
// missing.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestSingleton: with no PMI_FD and no PMI_PORT the client is rank 0 of 1
// with a local store and opens no descriptors at all.
func TestSingleton(t *testing.T) {
	ctx := t.Context()
	before := openFDs(t)
	env := map[string]string{"PMI_RANK": "3", "PMI_SIZE": "8", "PMI_ID": "3", "HOME": "/root"}
	c, err := Connect(ctx, ClientOptions{Getenv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Singleton() || c.Rank() != 0 || c.Size() != 1 || c.AppNum() != 0 || c.KVS() == "" {
		t.Errorf("singleton %v rank %d size %d appnum %d kvs %q; want true 0 1 0 and a name",
			c.Singleton(), c.Rank(), c.Size(), c.AppNum(), c.KVS())
	}
	if c.MaxValueLen() != 674 {
		t.Errorf("MaxValueLen %d, want 674 (Hydra's limits, clamped)", c.MaxValueLen())
	}
	if err := c.Put(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, "k", "v2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Barrier(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, "k"); err != nil || v != "v2" {
		t.Errorf("Get = %q, %v; want v2 (last write wins)", v, err)
	}
	if _, err := c.Get(ctx, "missing"); !errors.Is(err, ErrNoKey) {
		t.Errorf("Get missing = %v, want ErrNoKey", err)
	}
	if err := c.Put(ctx, "a b", "v"); err == nil {
		t.Error("Put of a key with a space succeeded")
	}
	data := bytes.Repeat([]byte{0, 1, 0xfe, 0xff}, 1000)
	if err := c.PutBytes(ctx, "blob", data); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetBytes(ctx, "blob"); err != nil || !bytes.Equal(got, data) {
		t.Errorf("GetBytes = %d bytes, %v; want the %d bytes put", len(got), err, len(data))
	}
	if n, err := c.UniverseSize(ctx); err != nil || n != 1 {
		t.Errorf("UniverseSize = %d, %v; want 1", n, err)
	}
	if err := c.Abort(1, "ignored"); err != nil {
		t.Errorf("Abort = %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Barrier(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Barrier with a done context = %v, want context.Canceled", err)
	}
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors went from %d to %d", before, after)
	}
	if err := c.Finalize(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Finalize(ctx); err != nil {
		t.Errorf("second Finalize = %v", err)
	}
	if _, err := c.Get(ctx, "k"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Finalize = %v, want ErrClosed", err)
	}
}

// TestEmptyVariablesAreUnset: "PMI_FD=" is how a wrapper clears what a
// launcher above it set, so empty variables mean singleton, not an error.
func TestEmptyVariablesAreUnset(t *testing.T) {
	env := map[string]string{"PMI_FD": "", "PMI_PORT": "", "PMI_ID": "", "PMI_RANK": "", "PMI_SIZE": ""}
	c, err := Connect(t.Context(), ClientOptions{Getenv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	if !c.Singleton() || c.Rank() != 0 || c.Size() != 1 {
		t.Errorf("got rank %d size %d singleton %v, want a singleton", c.Rank(), c.Size(), c.Singleton())
	}
}
