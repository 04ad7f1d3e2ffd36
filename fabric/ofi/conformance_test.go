package ofi_test

import (
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/ofi"
)

// newTransport opens provider's RDM endpoint, or skips the test when
// libfabric is not installed.
func newTransport(t testing.TB, provider string) *ofi.Transport {
	t.Helper()
	tr, err := ofi.New(ofi.Options{Provider: provider})
	if errors.Is(err, ofi.ErrNoLibrary) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatalf("New(%s): %v", provider, err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// TestConformance runs the fabric conformance suite, message and RMA
// cases, against one endpoint per provider: both ends of every pair are
// Conns of that endpoint, which sends to its own address.
func TestConformance(t *testing.T) {
	// udp (udp;ofi_rxd) is left out: it runs the fabric tests, but in
	// ConcurrentSendRecv (8 MiB each way at once) a byte arrives wrong and
	// the exchange then hangs.
	for _, p := range []string{"tcp", "shm"} {
		t.Run(p, func(t *testing.T) {
			fabrictest.TestTransport(t, newTransport(t, p))
		})
	}
}

// BenchmarkShm and BenchmarkTCP measure the transport's own overhead with
// both ends on one endpoint in this process (the provider sends to its
// own address): not the two-process figures bench-fabric.sh compares
// with fi_pingpong.
func BenchmarkShm(b *testing.B) { benchProvider(b, "shm") }

func BenchmarkTCP(b *testing.B) { benchProvider(b, "tcp") }

// BenchmarkTCPMsg is BenchmarkTCP over tcp's MSG endpoints (-e msg), a
// Conn's endpoint and its peer's both in this process.
func BenchmarkTCPMsg(b *testing.B) {
	tr, err := ofi.New(ofi.Options{Provider: "tcp", Endpoint: ofi.EndpointMsg})
	if errors.Is(err, ofi.ErrNoLibrary) {
		b.Skipf("%v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tr.Close() })
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) })
}

func benchProvider(b *testing.B, provider string) {
	tr := newTransport(b, provider)
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) })
}

// TestConformanceMsg runs the conformance suite, message and RMA cases,
// against tcp's MSG endpoints (-e msg): every Conn is an endpoint of its
// own, both ends of every pair in this process.
func TestConformanceMsg(t *testing.T) {
	tr, err := ofi.New(ofi.Options{Provider: "tcp", Endpoint: ofi.EndpointMsg})
	if errors.Is(err, ofi.ErrNoLibrary) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatalf("New(tcp, msg): %v", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	fabrictest.TestTransport(t, tr)
}
