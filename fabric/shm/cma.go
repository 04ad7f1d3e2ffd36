//go:build linux

package shm

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cmaRead copies len(local) bytes from address remote in process pid into
// local with process_vm_readv, looping over partial transfers.
func cmaRead(pid int, local []byte, remote uint64) error {
	return cmaCopy(pid, local, remote, false)
}

// cmaWrite copies local to address remote in process pid with
// process_vm_writev.
func cmaWrite(pid int, local []byte, remote uint64) error {
	return cmaCopy(pid, local, remote, true)
}

func cmaCopy(pid int, local []byte, remote uint64, write bool) error {
	for len(local) > 0 {
		liov := [1]unix.Iovec{{Base: &local[0]}}
		liov[0].SetLen(len(local))
		riov := [1]unix.RemoteIovec{{Base: uintptr(remote), Len: len(local)}}
		var n int
		var err error
		if write {
			n, err = unix.ProcessVMWritev(pid, liov[:], riov[:], 0)
		} else {
			n, err = unix.ProcessVMReadv(pid, liov[:], riov[:], 0)
		}
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return err
		case n == 0:
			return unix.EFAULT
		}
		local = local[n:]
		remote += uint64(n)
	}
	return nil
}

// cmaErr words a failed cross-memory copy; the peer's process having exited
// (ESRCH) is a closed connection.
func (c *Conn) cmaErr(op string, err error) error {
	call := "process_vm_readv"
	if op == "send" || op == "RMA write" {
		call = "process_vm_writev"
	}
	if errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("shm: %s: %s of pid %d: %w (%w)", op, call, c.peerPid, c.errClosed(op), err)
	}
	return fmt.Errorf("shm: %s: %s of pid %d: %w", op, call, c.peerPid, err)
}

// probeAccess reports whether this process may read the memory of process
// pid, by reading the 8-byte cookie the peer says it holds at addr.
func probeAccess(pid int, addr, want uint64) (bool, error) {
	var got uint64
	if err := cmaRead(pid, unsafe.Slice((*byte)(unsafe.Pointer(&got)), 8), addr); err != nil {
		return false, err
	}
	if got != want {
		return false, fmt.Errorf("cookie at %#x in pid %d reads %#x, want %#x", addr, pid, got, want)
	}
	return true, nil
}
