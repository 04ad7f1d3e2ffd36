package ucx_test

import (
	"errors"
	"testing"

	"github.com/hpcbench/hpcbench/fabric/fabrictest"
	"github.com/hpcbench/hpcbench/fabric/ucx"
)

// tlsVariants are the UCX_TLS settings the conformance suite runs under:
// shared memory through POSIX and System V segments, and TCP.
var tlsVariants = []string{"posix,self", "sysv,self", "tcp"}

// newTransport returns a UCX transport with UCX_TLS set to tls, closed
// when the test ends, or skips the test when libucp is not installed.
func newTransport(t testing.TB, tls string) *ucx.Transport {
	t.Helper()
	tr, err := ucx.New(ucx.Options{TLS: tls})
	if errors.Is(err, ucx.ErrNoLibrary) {
		t.Skipf("UCX is not installed (Debian: apt-get install libucx0): %v", err)
	}
	if err != nil {
		t.Fatalf("ucx.New(UCX_TLS=%s): %v", tls, err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// TestConformance runs the fabric conformance suite, messages and RMA,
// over UCX for each UCX_TLS of tlsVariants.
func TestConformance(t *testing.T) {
	for _, tls := range tlsVariants {
		t.Run("UCX_TLS="+tls, func(t *testing.T) {
			fabrictest.TestTransport(t, newTransport(t, tls))
		})
	}
}
