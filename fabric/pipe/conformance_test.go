package pipe

import (
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// TestConformance runs the fabric.Conn conformance suite against pipe
// pairs in every eager mode.
func TestConformance(t *testing.T) {
	for _, tc := range eagerCases {
		t.Run(tc.name, func(t *testing.T) {
			fabrictest.TestConnPair(t, func(t *testing.T) (a, b fabric.Conn) { return NewPair(tc.o) })
		})
	}
}

// BenchmarkConformance runs fabrictest's standard benchmarks over a pipe.
func BenchmarkConformance(b *testing.B) {
	fabrictest.BenchConnPair(b, func(b *testing.B) (x, y fabric.Conn) { return Pair() })
}
