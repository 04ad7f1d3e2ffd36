package fabtest

import (
	"fmt"
	"slices"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// CheckMemory refuses sizes whose buffers (a send and a receive buffer on
// each of two ends, which may share the host) this host cannot hold.
// Nothing is refused where the host's memory cannot be read.
func CheckMemory(sizes []int) error {
	h, err := hostmem.ReadHostMemory()
	if err != nil {
		return nil // unknown: nothing refused
	}
	return checkMemory(sizes, h)
}

// checkMemory is CheckMemory against host.
func checkMemory(sizes []int, host hostmem.HostMemory) error {
	if len(sizes) == 0 {
		return nil
	}
	largest := int64(slices.Max(sizes))
	if need := 4 * largest; need > host.Bytes {
		return fmt.Errorf("-S %s: needs %s of buffers on a host running both ends, this host has %s (%s)",
			units.FormatSize(largest), units.FormatSize(need), units.FormatSize(host.Bytes), host.Source)
	}
	return nil
}
