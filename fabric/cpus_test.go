package fabric

import "testing"

func TestCountCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 1, true}, {"0-1", 2, true}, {"0-3,8,10-11", 7, true},
		{"", 0, false}, {"3-1", 0, false}, {"a", 0, false}, {"0-", 0, false}, {"-1", 0, false},
	} {
		if n, ok := countCPUList(c.in); n != c.want || ok != c.ok {
			t.Errorf("countCPUList(%q) = %d, %v; want %d, %v", c.in, n, ok, c.want, c.ok)
		}
	}
	if OnlineCPUs() < 1 {
		t.Error("OnlineCPUs() < 1")
	}
}
