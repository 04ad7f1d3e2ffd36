package ofi_test

import (
	"errors"
	"testing"

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
	for _, p := range []string{"tcp", "shm"} {
		t.Run(p, func(t *testing.T) {
			fabrictest.TestTransport(t, newTransport(t, p))
		})
	}
}
