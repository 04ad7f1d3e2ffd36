package launch

import "github.com/hpcbench/hpcbench/internal/procstat"

// anyZombie reports whether a rank not yet reported exited is already dead:
// a zombie its spawner has not reaped, or gone from /proc because the
// spawner reaped it and its report is still in flight.
func (jb *job) anyZombie() bool {
	if jb.remote != nil {
		return false // their /proc is on their hosts
	}
	for r, pid := range jb.pids {
		if pid > 0 && !jb.exited[r] && procDead(pid) {
			return true
		}
	}
	return false
}

// procDead reads /proc/PID/stat: true for state Z or X, or no such process.
func procDead(pid int) bool {
	st, ok := procstat.Read(pid)
	return !ok || st.Exited()
}
