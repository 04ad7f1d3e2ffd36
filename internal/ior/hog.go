package ior

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/ior/config"
)

// memoryHog is the memory -M or -O memoryPerTask has a task hold during a
// test, as IOR's HogMemory does, to leave that much less for the page
// cache: mapped outside the Go heap, every page touched so that it is
// really taken, and unmapped when the test ends.
type memoryHog struct {
	node, task int64 // -M resolved for the node (0 without -M), and this task's share
	mem        []byte
}

// resolveMemory works out the memory of o for a task: -O memoryPerTask
// as given, or -M (a size, or a percentage of the node's physical memory)
// shared by the tasks on node 0, as IOR divides it by numTasksOnNode0.
func resolveMemory(o *config.Options, tasksOnNode int, physical int64) (memoryHog, error) {
	if o.MemoryPerTask > 0 {
		if o.MemoryPerTask > physical {
			return memoryHog{}, fmt.Errorf("-O memoryPerTask=%d: more than the node's %d bytes of memory", o.MemoryPerTask, physical)
		}
		return memoryHog{task: o.MemoryPerTask}, nil
	}
	if o.MemoryPerNode.IsZero() {
		return memoryHog{}, nil
	}
	node := o.MemoryPerNode.Of(physical)
	if node > physical {
		return memoryHog{}, fmt.Errorf("-M %s: %d bytes, more than the node's %d bytes of memory", o.MemoryPerNode, node, physical)
	}
	return memoryHog{node: node, task: node / int64(max(1, tasksOnNode))}, nil
}

// physicalMemory returns the host's RAM in bytes, as IOR's
// sysconf(_SC_PHYS_PAGES) × page size.
func physicalMemory() (int64, error) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0, fmt.Errorf("sysinfo: %w", err)
	}
	total := uint64(si.Totalram) * uint64(si.Unit)
	if total > math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(total), nil
}

// hold maps and touches h.task bytes; release gives them back.
func (h *memoryHog) hold() error {
	if h.task <= 0 || h.mem != nil {
		return nil
	}
	if h.task > math.MaxInt {
		return fmt.Errorf("hog %d bytes: beyond this platform", h.task)
	}
	mem, err := unix.Mmap(-1, 0, int(h.task), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return fmt.Errorf("hog %d bytes of memory: %w", h.task, err)
	}
	page := os.Getpagesize()
	for i := 0; i < len(mem); i += page {
		mem[i] = 1
	}
	h.mem = mem
	return nil
}

// release unmaps what hold mapped.
func (h *memoryHog) release() error {
	if h.mem == nil {
		return nil
	}
	err := unix.Munmap(h.mem)
	h.mem = nil
	if err != nil {
		return fmt.Errorf("release the hogged memory: %w", err)
	}
	return nil
}
