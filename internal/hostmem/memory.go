package hostmem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
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

// cgroupLeft returns what this process's memory cgroups still allow, when
// one of them sets a limit (cgroupLeftAt over /sys/fs/cgroup).
func cgroupLeft() (int64, bool) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	return cgroupLeftAt("/sys/fs/cgroup", string(self))
}

// cgroupLeftAt returns the least that the memory cgroups of a process
// still allow, given the cgroup file system's root and the process's
// /proc/self/cgroup text: its own cgroup and every ancestor's, under v2
// (the "0::PATH" line) and v1 (the memory controller's line), since a
// parent's limit binds its children. What a cgroup allows is its limit
// less its usage, where the usage's inactive file pages (page cache the
// kernel reclaims before it would fail an allocation; a file-system
// benchmark leaves much of it) count as free, as MemAvailable counts
// them. ok is false when no cgroup on the path sets a limit.
func cgroupLeftAt(root, self string) (left int64, ok bool) {
	left = math.MaxInt64
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir string
		var f cgroupFiles
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, f = root, cgroupV2
			if _, err := os.Stat(filepath.Join(root, "unified", "cgroup.controllers")); err == nil {
				dir = filepath.Join(root, "unified") // hybrid: v1 at root, v2 below
			}
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			dir, f = filepath.Join(root, "memory"), cgroupV1
		default:
			continue
		}
		for p := path.Clean("/" + parts[2]); ; p = path.Dir(p) {
			if l, found := f.left(filepath.Join(dir, p)); found {
				left, ok = min(left, l), true
			}
			if p == "/" {
				break
			}
		}
	}
	return left, ok
}

// cgroupFiles names one cgroup version's memory files.
type cgroupFiles struct {
	limit, usage, stat, inactive string
}

var (
	cgroupV2 = cgroupFiles{"memory.max", "memory.current", "memory.stat", "inactive_file"}
	cgroupV1 = cgroupFiles{"memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat", "total_inactive_file"}
)

// left returns what the cgroup in dir still allows, when it sets a limit.
func (f cgroupFiles) left(dir string) (int64, bool) {
	limit, ok := readInt(filepath.Join(dir, f.limit))
	if !ok || limit >= 1<<62 { // "max", or v1's unlimited page-rounded MaxInt64
		return 0, false
	}
	used, _ := readInt(filepath.Join(dir, f.usage))
	used -= statValue(filepath.Join(dir, f.stat), f.inactive)
	return min(limit, max(0, limit-used)), true
}

// statValue returns key's value in a memory.stat file, 0 when absent.
func statValue(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
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
