//go:build verbs && linux && cgo

package verbs_test

import (
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/verbs"
)

// The real-device tests: the conformance suite that the fake device
// passes, over this host's RDMA device (verbs.Options' default choice),
// its RC queue pairs and registered memory.
// They are what to run on an RDMA host (verbs.RealDeviceTest says how);
// on a host without a device they skip, saying so in one line.

// realTransport returns a transport over this host's RDMA device, or
// skips the test when the host has none.
func realTransport(t *testing.T) *verbs.Transport {
	t.Helper()
	if _, err := verbs.Devices(); errors.Is(err, verbs.ErrNoDevice) {
		t.Skip(err.Error())
	} else if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	tr, err := verbs.New(verbs.DefaultOptions())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}

// TestRealDeviceConformance: messages of every size, tags, ordering,
// deadlines, closes and wiring up many ranks, over the device.
func TestRealDeviceConformance(t *testing.T) {
	fabrictest.TestTransport(t, realTransport(t))
}

// TestRealDeviceRMA: one-sided writes and reads into exposed regions,
// over the device.
func TestRealDeviceRMA(t *testing.T) {
	tr := realTransport(t)
	fabrictest.TestRMAPair(t, func(t *testing.T) (a, b fabric.RMAConn) {
		x, y := fabrictest.Pair(t, tr)
		ra, ok1 := x.(fabric.RMAConn)
		rb, ok2 := y.(fabric.RMAConn)
		if !ok1 || !ok2 {
			t.Fatalf("verbs Conns are not fabric.RMAConn: %T, %T", x, y)
		}
		return ra, rb
	})
}
