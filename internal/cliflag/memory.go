package cliflag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/units"
)

// HostMemory is what this host can give a run's buffers.
type HostMemory struct {
	// Bytes is MemAvailable from /proc/meminfo (MemTotal on kernels
	// before 3.14, which lack it), lowered to what the memory cgroup
	// still allows when its limit is lower.
	Bytes int64
	// Source names where Bytes came from ("MemAvailable").
	Source string
}

// ReadHostMemory reads this host's HostMemory. MemAvailable, not
// MemTotal: it is the kernel's estimate of what a new allocation gets
// without swapping (free memory plus the page cache it can drop), so a
// buffer that fits MemTotal but not MemAvailable still pushes the host
// into swap or the OOM killer, and a file-system benchmark's own page
// cache is counted as what it is, reclaimable.
func ReadHostMemory() (HostMemory, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return HostMemory{}, fmt.Errorf("host memory: %w", err)
	}
	defer f.Close()
	m, err := ParseMeminfo(f)
	if err != nil {
		return HostMemory{}, fmt.Errorf("host memory: /proc/meminfo: %w", err)
	}
	if left, ok := cgroupLeft(); ok && left < m.Bytes {
		m = HostMemory{Bytes: left, Source: "the memory cgroup's limit"}
	}
	return m, nil
}

// ParseMeminfo reads /proc/meminfo's text: MemAvailable, or MemTotal when
// the kernel has no MemAvailable.
func ParseMeminfo(r io.Reader) (HostMemory, error) {
	var total int64 = -1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "MemAvailable" && key != "MemTotal") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			return HostMemory{}, fmt.Errorf("%s: %q is not a size in kB", key, strings.TrimSpace(rest))
		}
		if key == "MemAvailable" {
			return HostMemory{Bytes: kb * 1024, Source: "MemAvailable"}, nil
		}
		total = kb * 1024
	}
	if err := sc.Err(); err != nil {
		return HostMemory{}, err
	}
	if total < 0 {
		return HostMemory{}, errors.New("no MemAvailable or MemTotal line")
	}
	return HostMemory{Bytes: total, Source: "MemTotal"}, nil
}

// cgroupLeft returns what this process's memory cgroup still allows
// (limit less usage), v2 or v1, when a limit is set.
func cgroupLeft() (int64, bool) {
	for _, p := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok := readInt(p[0])
		if !ok || limit >= 1<<62 { // "max", or v1's unlimited page-rounded MaxInt64
			continue
		}
		used, _ := readInt(p[1])
		return max(0, limit-used), true
	}
	return 0, false
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// BufferError returns why perRank bytes of buffer for each of ranks ranks
// on this host do not fit in m, or nil when they do: "needs 64 GiB of
// buffer per rank, this host has 23.2 GiB available (MemAvailable)". The
// caller puts the flag and its value first.
func BufferError(perRank int64, ranks int, m HostMemory) error {
	ranks = max(1, ranks)
	total := perRank
	if perRank > math.MaxInt64/int64(ranks) {
		total = math.MaxInt64
	} else {
		total *= int64(ranks)
	}
	if total <= m.Bytes {
		return nil
	}
	if ranks == 1 {
		return fmt.Errorf("needs %s of buffer per rank, this host has %s available (%s)",
			ApproxSize(perRank), ApproxSize(m.Bytes), m.Source)
	}
	return fmt.Errorf("needs %s of buffer per rank, %s for the %d ranks on this host, which has %s available (%s)",
		ApproxSize(perRank), ApproxSize(total), ranks, ApproxSize(m.Bytes), m.Source)
}

// ApproxSize writes n bytes for a person, in the largest binary unit it
// reaches: whole when that unit divides it ("64 GiB"), else to one
// decimal ("23.2 GiB").
func ApproxSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{units.TiB, "TiB"}, {units.GiB, "GiB"}, {units.MiB, "MiB"}, {units.KiB, "KiB"}} {
		switch {
		case n < u.size:
			continue
		case n%u.size == 0:
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64), ".0") + " " + u.name
	}
	return strconv.FormatInt(n, 10) + " B"
}

// SizeArg writes n as a size option takes it, with the largest suffix
// that divides it: 64g, 4k, 1000.
func SizeArg(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{units.TiB, "t"}, {units.GiB, "g"}, {units.MiB, "m"}, {units.KiB, "k"}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}
