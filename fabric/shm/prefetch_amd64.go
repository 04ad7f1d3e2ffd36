//go:build linux

package shm

import "unsafe"

// prefetchLines asks for the n cache lines from p in a state this core may
// write (PREFETCHW), without waiting for them.
//
//go:noescape
func prefetchLines(p unsafe.Pointer, n int)

// prefetchWSupported reports whether the CPU has PREFETCHW (CPUID
// 0x80000001, ECX bit 8); without it the instruction may fault.
func prefetchWSupported() bool
