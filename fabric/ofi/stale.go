package ofi

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Stale shared-memory regions. libfabric's shm provider keeps each
// endpoint's region in /dev/shm, named PID:EP:DOMAIN, until fi_close or the
// C library's exit handlers, which a killed process (or a Go program's
// exit) never runs. With pid_max at 32768 a new process soon gets the pid
// of a dead one whose region is still there, and then peers' messages go
// astray (a hello lost, a Dial that times out). Before it opens an shm
// endpoint, a Transport removes the regions of this user whose process is
// gone, and any named for its own pid, which cannot be its own yet.

// shmDir is where POSIX shared memory lives on Linux.
const shmDir = "/dev/shm"

var shmRegionName = regexp.MustCompile(`^([0-9]+):[0-9]+:[0-9]+$`)

// removeStaleRegions removes the stale regions in dir and returns how many.
func removeStaleRegions(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	self, uid := os.Getpid(), os.Getuid()
	n := 0
	for _, ent := range entries {
		m := shmRegionName.FindStringSubmatch(ent.Name())
		if m == nil || !ent.Type().IsRegular() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 {
			continue
		}
		info, err := ent.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		if pid != self && !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
			continue // its process lives
		}
		if os.Remove(filepath.Join(dir, ent.Name())) == nil {
			n++
		}
	}
	return n
}
