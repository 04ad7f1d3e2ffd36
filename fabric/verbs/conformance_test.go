package verbs_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/fabric/verbs/fakeverbs"
)

// fakeTransport returns a transport over a new fake fabric with one
// InfiniBand device, and the device's hardware.
func fakeTransport(t testing.TB, o verbs.Options) (*verbs.Transport, *fakeverbs.HCA) {
	t.Helper()
	f := fakeverbs.New()
	h := f.AddDevice(fakeverbs.Config{})
	tr, err := verbs.NewWithOpener(o, f.Opener())
	if err != nil {
		t.Fatalf("NewWithOpener(%+v): %v", o, err)
	}
	return tr, h
}

func TestConformance(t *testing.T) {
	tr, h := fakeTransport(t, verbs.DefaultOptions())
	fabrictest.TestTransport(t, tr)
	if n := h.OpenQPs(); n != 0 {
		t.Errorf("%d QPs left on the fake device after every connection closed", n)
	}
	if n := h.OpenDevices(); n != 0 {
		t.Errorf("%d device handles left open after every connection and listener closed", n)
	}
}

func TestConformanceSmallRing(t *testing.T) {
	if testing.Short() {
		t.Skip("the default ring already runs the whole suite")
	}
	// Four slots of 1 KiB: every message but the smallest is chunked, and
	// credits run out all the time. (64-byte slots work too, but 8 MiB in
	// 48-byte chunks outlasts the suite's 60 s per case.)
	o := verbs.DefaultOptions()
	o.Slots, o.SlotSize, o.Inline = verbs.MinSlots, 1024, -1
	tr, _ := fakeTransport(t, o)
	fabrictest.TestConnPair(t, func(t *testing.T) (a, b fabric.Conn) { return fabrictest.Pair(t, tr) })
}

func TestConformanceEventMode(t *testing.T) {
	if testing.Short() {
		t.Skip("the busy-polled default already runs the whole suite")
	}
	o := verbs.DefaultOptions()
	o.EventMode, o.Spin = true, 1
	tr, _ := fakeTransport(t, o)
	fabrictest.TestConnPair(t, func(t *testing.T) (a, b fabric.Conn) { return fabrictest.Pair(t, tr) })
}

// BenchmarkFake measures the transport's own overhead (copies, headers,
// credits, polling) over the in-memory fake: no network, so not a verbs
// number.
func BenchmarkFake(b *testing.B) {
	tr, _ := fakeTransport(b, verbs.DefaultOptions())
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) })
}
