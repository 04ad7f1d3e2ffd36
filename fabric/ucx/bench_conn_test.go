package ucx_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// twoWorkerPair connects a pair over two transports, so two UCX workers of
// this process talk through UCX_TLS (over one worker, UCX takes its self
// transport): rank 0 listens on one, rank 1 dials from the other.
func twoWorkerPair(b *testing.B, tls string) (x, y fabric.Conn) {
	b.Helper()
	t0, t1 := newTransport(b, tls), newTransport(b, tls)
	ln, err := t0.Listen(b.Context(), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	dialed := make(chan error, 1)
	go func() {
		c, err := t1.Dial(b.Context(), 1, ln.Addr())
		y = c
		dialed <- err
	}()
	x, _, err = ln.Accept(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	if err := <-dialed; err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = x.Close()
		_ = y.Close()
	})
	return x, y
}

// BenchmarkPosix measures the transport's ping-pong and stream between two
// workers of this process over UCX's POSIX shared memory: the Go side's
// cost on top of UCX's (the same benchmarks as every transport's). The
// figures to compare with ucx_perftest, between two processes, are
// scripts/bench-fabric.sh's.
func BenchmarkPosix(b *testing.B) {
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return twoWorkerPair(b, "posix") })
}
