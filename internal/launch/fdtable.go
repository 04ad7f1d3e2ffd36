package launch

import "golang.org/x/sys/unix"

// growFDTable makes the kernel size this process's file table for n
// descriptors at once. The table doubles as descriptors are opened, and in a
// process with more than one thread (every Go program) each doubling waits
// for an RCU grace period: 5 to 20 ms on this kind of VM, six times over on
// the way to the ~3,100 descriptors of a 1,024-rank job, with fds being
// opened blocked meanwhile (measured: 3,000 pipe ends in 35-60 ms, against
// 10-22 ms when the table is sized first). Duplicating a descriptor to the
// lowest free number from n-1 up (F_DUPFD, which never replaces an open
// one) and closing it pays one grace period instead.
//
// Tables of up to 64 descriptors are embedded in the process and cost
// nothing to set up: small jobs skip this. It is best effort; on failure
// the table grows as it would have anyway.
func growFDTable(n int) {
	if n <= 64 {
		return
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return
	}
	if uint64(n) > lim.Cur {
		n = int(lim.Cur)
	}
	for _, fd := range []int{0, 1, 2} {
		if d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, n-1); err == nil {
			unix.Close(d)
			return
		}
	}
}

// launcherFDs is how many descriptors the launcher holds for a job of n
// ranks at most: a PMI socket and two output pipes per rank (with room for
// the two write ends and the rank's PMI end in flight while it starts), a
// trace file per rank when tracing, and headroom for the runtime's own.
func launcherFDs(n int, trace bool) int {
	per := 3
	if trace {
		per++
	}
	return per*n + 64
}
