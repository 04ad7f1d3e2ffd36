//go:build linux

package shm

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPrefetchWSupported checks the CPUID probe against the kernel's view
// of the CPU: Linux lists PRFCHW as "3dnowprefetch".
func TestPrefetchWSupported(t *testing.T) {
	want := false
	if runtime.GOARCH == "amd64" {
		info, err := os.ReadFile("/proc/cpuinfo")
		if err != nil {
			t.Skipf("no /proc/cpuinfo: %v", err)
		}
		for line := range strings.Lines(string(info)) {
			if name, flags, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
				want = slices.Contains(strings.Fields(flags), "3dnowprefetch")
				break
			}
		}
	}
	if got := prefetchWSupported(); got != want {
		t.Errorf("prefetchWSupported() = %v; /proc/cpuinfo says %v", got, want)
	}
}

// TestWarmSendPingPong runs a ping-pong whose every Recv waits, so that
// warmSend prefetches the replying side's next record, with sizes up to
// past warmLimit, over a small ring so that records and the prefetched
// ranges wrap around its end many times; every message must arrive whole.
func TestWarmSendPingPong(t *testing.T) {
	o := DefaultOptions()
	o.RingSize = minRingSize
	d, a := pair(t, newTransport(t, o))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sizes := []int{0, 1, 48, 49, 1000, 4096, warmLimit + 100, 9000}
	const rounds = 200
	errc := make(chan error, 1)
	go func() { // the echo side
		buf := make([]byte, 16<<10)
		for i := range rounds * len(sizes) {
			n, err := a.Recv(ctx, uint32(i), buf)
			if err == nil {
				err = a.Send(ctx, uint32(i), buf[:n])
			}
			if err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	got := make([]byte, 16<<10)
	for i := range rounds * len(sizes) {
		want := fill(sizes[i%len(sizes)], uint64(i))
		if err := d.Send(ctx, uint32(i), want); err != nil {
			t.Fatalf("message %d: send: %v", i, err)
		}
		n, err := d.Recv(ctx, uint32(i), got)
		if err != nil {
			t.Fatalf("message %d: recv: %v", i, err)
		}
		if !bytes.Equal(got[:n], want) {
			t.Fatalf("message %d (%d bytes): echo differs", i, len(want))
		}
	}
	if err := <-errc; err != nil {
		t.Fatalf("echo side: %v", err)
	}
	if got, want := a.snd.last.Load(), recLen(sizes[len(sizes)-1]); got != want {
		t.Errorf("echo side's last eager record: %d ring bytes; want %d", got, want)
	}
}
