package launch

import (
	"bytes"
	"os"
	"strconv"
)

// anyZombie reports whether a rank not yet reported exited is already dead:
// a zombie its spawner has not reaped, or gone from /proc because the
// spawner reaped it and its report is still in flight.
func (jb *job) anyZombie() bool {
	for r, pid := range jb.pids {
		if pid > 0 && !jb.exited[r] && procDead(pid) {
			return true
		}
	}
	return false
}

// procDead reads /proc/PID/stat: true for state Z or X, or no such process.
func procDead(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command name, which is in parentheses and
	// may itself contain ") ".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	switch b[i+2] {
	case 'Z', 'X':
		return true
	}
	return false
}
