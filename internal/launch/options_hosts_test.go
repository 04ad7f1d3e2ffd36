package launch

import (
	"strconv"
	"strings"
	"testing"
)

// TestValidateHosts: a job across hosts must place every rank once,
// ascending on each host, on named hosts that each run one, without
// --pmi-port, in a layout whose PMI_process_mapping fits a PMI line.
func TestValidateHosts(t *testing.T) {
	// 120 hosts running 1, 2, 3, ... ranks in turn: a layout that does
	// not repeat, whose mapping takes a triple per host.
	var irregular []HostRanks
	n := 0
	for i := range 120 {
		h := HostRanks{Name: "h" + strconv.Itoa(i)}
		for range i%7 + 1 {
			h.Ranks = append(h.Ranks, n)
			n++
		}
		irregular = append(irregular, h)
	}
	for _, tc := range []struct {
		name  string
		n     int
		hosts []HostRanks
		port  bool
		want  string // "" for valid
	}{
		{"blocks", 4, []HostRanks{{"a", []int{0, 1}}, {"b", []int{2, 3}}}, false, ""},
		{"round robin", 4, []HostRanks{{"a", []int{0, 2}}, {"b", []int{1, 3}}}, false, ""},
		{"more hosts than ranks", 1, []HostRanks{{"a", []int{0}}, {"b", nil}}, false, "2 hosts for 1 ranks"},
		{"empty name", 2, []HostRanks{{"", []int{0, 1}}}, false, `host name ""`},
		{"name with a space", 2, []HostRanks{{"a b", []int{0, 1}}}, false, `host name "a b"`},
		{"host with no rank", 2, []HostRanks{{"a", []int{0, 1}}, {"b", nil}}, false, "host b runs no rank"},
		{"rank twice", 2, []HostRanks{{"a", []int{0}}, {"b", []int{0}}}, false, "host b: rank 0"},
		{"descending", 2, []HostRanks{{"a", []int{1, 0}}}, false, "host a: rank 0"},
		{"rank beyond the job", 2, []HostRanks{{"a", []int{0, 2}}}, false, "host a: rank 2"},
		{"rank on no host", 3, []HostRanks{{"a", []int{0}}, {"b", []int{2}}}, false, "rank 1 is on no host"},
		{"pmi port", 2, []HostRanks{{"a", []int{0}}, {"b", []int{1}}}, true, "--pmi-port"},
		{"mapping too long", n, irregular, false, "PMI_process_mapping takes"},
	} {
		o := Options{N: tc.n, Hosts: tc.hosts, PMIPort: tc.port}
		err := o.validateHosts()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if m := processMappingOf(irregular); len(m) <= maxMapping {
		t.Errorf("the irregular layout's mapping takes %d bytes: the test wants one over %d", len(m), maxMapping)
	}
}
