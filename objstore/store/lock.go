package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// lockPool takes the exclusive flock(2) of dir's engine.lock without
// waiting and writes this process's pid into it. The lock lasts until the
// returned file is closed (or the process dies: the kernel drops it, so a
// killed engine leaves no stale lock).
func lockPool(dir string) (*os.File, error) {
	path := dir + "/" + lockFile
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("another engine (%s) holds %s: %w", holder(f), path, ErrBusy)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// holder names the process that wrote its pid into the lock file.
func holder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil {
		return "pid " + strconv.Itoa(pid)
	}
	return "pid unknown"
}

// Held reports whether an engine (another process, or an Open in this
// one) holds the pool in dir, without taking it.
func Held(dir string) (bool, error) {
	path := dir + "/" + lockFile
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("pool %s: %w", dir, err)
	}
	defer f.Close()
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); {
	case errors.Is(err, unix.EWOULDBLOCK):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("pool %s: probe %s: %w", dir, path, err)
	}
	return false, nil // closing f drops the probe's lock
}

// ErrBusy is what a pool locked by another engine wraps.
var ErrBusy = errors.New("pool is busy")
