//go:build linux && !amd64

package shm

import "unsafe"

// prefetchLines does nothing on this architecture: it is only a hint.
func prefetchLines(p unsafe.Pointer, n int) {}

// prefetchWSupported is false: there is nothing to prefetch with.
func prefetchWSupported() bool { return false }
