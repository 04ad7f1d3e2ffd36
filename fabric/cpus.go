package fabric

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// OnlineCPUs returns the number of CPUs online on this host, which is what
// decides whether its ranks are oversubscribed: runtime.NumCPU counts only
// the CPUs this process may run on, one for a rank bound to a core. It
// falls back to runtime.NumCPU when sysfs cannot be read.
func OnlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	if n, ok := countCPUList(strings.TrimSpace(string(b))); ok && n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// countCPUList counts the CPUs of a kernel CPU list such as "0-3,8,10-11".
func countCPUList(s string) (int, bool) {
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, false
			}
		}
		n += b - a + 1
	}
	return n, true
}
