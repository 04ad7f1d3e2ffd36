package launch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDomains(t *testing.T) {
	// Two sockets of two cores with two hardware threads each, numbered
	// as Linux numbers them (the second thread of every core last).
	smt := []cpuTopo{{0, 0, 0}, {1, 0, 1}, {2, 1, 0}, {3, 1, 1}, {4, 0, 0}, {5, 0, 1}, {6, 1, 0}, {7, 1, 1}}
	for _, tc := range []struct {
		b    Binding
		cpus []cpuTopo
		want [][]int
	}{
		{BindNone, smt, nil},
		{BindHWThread, smt, [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},
		{BindCore, smt, [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		{BindSocket, smt, [][]int{{0, 1, 4, 5}, {2, 3, 6, 7}}},
		// A restricted affinity mask (a cpuset): only what is allowed.
		{BindCore, []cpuTopo{{2, 1, 0}, {6, 1, 0}, {7, 1, 1}}, [][]int{{2, 6}, {7}}},
		// Unreadable topology: every CPU its own core.
		{BindCore, []cpuTopo{{0, 0, -1}, {1, 0, -2}}, [][]int{{0}, {1}}},
	} {
		if got := domains(tc.b, tc.cpus); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("domains(%s, %v) = %v, want %v", tc.b, tc.cpus, got, tc.want)
		}
	}
}

func TestParseBinding(t *testing.T) {
	for _, s := range []string{"none", "hwthread", "core", "socket", "CORE"} {
		if _, err := ParseBinding(s); err != nil {
			t.Errorf("ParseBinding(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "numa", "cores"} {
		if _, err := ParseBinding(s); err == nil || !strings.Contains(err.Error(), "--bind-to") {
			t.Errorf("ParseBinding(%q) = %v, want an error naming --bind-to", s, err)
		}
	}
}

func TestCPUList(t *testing.T) {
	set, err := parseCPUs(formatCPUs([]int{0, 3, 17}))
	if err != nil || set.Count() != 3 || !set.IsSet(3) || !set.IsSet(17) {
		t.Errorf("round trip: %v %v", set, err)
	}
	for _, s := range []string{"", "1,,2", "-1", "x", "100000"} {
		if _, err := parseCPUs(s); err == nil {
			t.Errorf("parseCPUs(%q) accepted", s)
		}
	}
}

// TestRunBound: each rank starts bound to its domain, round robin.
func TestRunBound(t *testing.T) {
	cpus, err := allowedTopo()
	if err != nil {
		t.Fatal(err)
	}
	doms := domains(BindHWThread, cpus)
	n := len(doms) + 1 // one more than CPUs: the last wraps around
	out, errs, err := runJob(t, Options{N: n, Bind: BindHWThread, TagOutput: true,
		Command: []string{"sh", "-c", `grep Cpus_allowed_list /proc/self/status`}})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, errs)
	}
	for r := range n {
		want := fmt.Sprintf("[%d] Cpus_allowed_list:\t%d\n", r, doms[r%len(doms)][0])
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
