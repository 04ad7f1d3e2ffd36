package ior

import (
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dualMountBase is the -o of a task under -y (dual mount), as IOR's
// GetTestFileName makes it: the name followed by the NUMA node the task
// runs on and "/data", so that "-o /mnt/fs -y" puts the files of the tasks
// on node 0 under /mnt/fs0/ and those on node 1 under /mnt/fs1/, two
// mount points of one file system. -F then appends the rank, as always.
func dualMountBase(testFile string, node int) string {
	return testFile + strconv.Itoa(node) + "/data"
}

// numaNode returns the NUMA node of the CPU the calling thread runs on,
// as IOR's GetProcessorAndCore asks getcpu(2), or 0 when the kernel does
// not say. A task that is not bound to a node may move; hpcbench launch
// --bind-to pins it.
func numaNode() int {
	var cpu, node uint32
	_, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	if errno != 0 {
		return 0
	}
	return int(node)
}
