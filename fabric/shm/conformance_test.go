//go:build linux

package shm

import (
	"testing"

	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// TestConformance runs the fabric conformance suite against the default
// options and against ones that force each large-message path.
func TestConformance(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			fabrictest.TestTransport(t, newTransport(t, v.opts))
		})
	}
}
