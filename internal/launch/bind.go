package launch

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Binding is how ranks are bound to CPUs, in Hydra's -bind-to terms.
type Binding string

// The bindings. Ranks take the binding's domains (a hardware thread, a
// core with its threads, a socket) among the CPUs the launcher may use, in
// order, round robin: rank r gets domain r mod the number of domains.
const (
	BindNone     Binding = "none"
	BindHWThread Binding = "hwthread"
	BindCore     Binding = "core"
	BindSocket   Binding = "socket"
)

// Bindings lists the accepted values of --bind-to.
var bindings = []Binding{BindNone, BindHWThread, BindCore, BindSocket}

// ParseBinding checks a --bind-to value.
func ParseBinding(s string) (Binding, error) {
	b := Binding(strings.ToLower(s))
	if !slices.Contains(bindings, b) {
		names := make([]string, len(bindings))
		for i, x := range bindings {
			names[i] = string(x)
		}
		return "", fmt.Errorf("--bind-to %q: must be one of %s", s, strings.Join(names, ", "))
	}
	return b, nil
}

// cpuTopo is where a CPU sits: its package (socket) and core.
type cpuTopo struct{ cpu, pkg, core int }

// domains groups cpus by b: one CPU each, the CPUs of each core, or of each
// package, in order of their first CPU. BindNone gives nil.
func domains(b Binding, cpus []cpuTopo) [][]int {
	if b == BindNone || b == "" {
		return nil
	}
	var out [][]int
	index := map[[2]int]int{}
	for _, c := range cpus {
		key := [2]int{c.cpu, -1}
		switch b {
		case BindCore:
			key = [2]int{c.pkg, c.core}
		case BindSocket:
			key = [2]int{c.pkg, -1}
		}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c.cpu)
	}
	return out
}

// allowedTopo returns the CPUs this process may run on, with their
// topology from sysfs (a CPU whose topology is unreadable is its own core
// on package 0).
func allowedTopo() ([]cpuTopo, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("--bind-to: reading this process's CPU affinity: %w", err)
	}
	var out []cpuTopo
	for cpu := range len(set) * 64 {
		if !set.IsSet(cpu) {
			continue
		}
		dir := "/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/topology/"
		pkg, perr := readInt(dir + "physical_package_id")
		core, cerr := readInt(dir + "core_id")
		if perr != nil || cerr != nil {
			pkg, core = 0, -1-cpu
		}
		out = append(out, cpuTopo{cpu: cpu, pkg: pkg, core: core})
	}
	return out, nil
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// formatCPUs writes a CPU list as "0,1,4".
func formatCPUs(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// parseCPUs reads formatCPUs' output into a CPU set.
func parseCPUs(s string) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, f := range strings.Split(s, ",") {
		c, err := strconv.Atoi(f)
		if err != nil || c < 0 || c >= len(set)*64 {
			return set, fmt.Errorf("CPU list %q: %q is not a CPU number below %d", s, f, len(set)*64)
		}
		set.Set(c)
	}
	return set, nil
}
