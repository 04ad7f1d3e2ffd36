package job

import (
	"strings"
	"testing"
)

// TestLoopback: which card addresses name a loopback IP.
func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"tcp://127.0.0.1:4000":          true,
		"tcp://127.0.1.1:4000":          true,
		"tcp://[::1]:4000":              true,
		"tcp://localhost:4000":          true,
		"verbs://127.0.0.1:7/mlx5_0:1":  true,
		"tcp://10.1.2.3:4000":           false,
		"verbs://10.1.2.3:7/mlx5_0:1":   false,
		"tcp://node12:4000":             false,
		"shm:///dev/shm/hpcbench-1-2-3": false,
		"garbage":                       false,
		"tcp://no-port":                 false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestReachable: a peer on another host that published loopback is
// refused, naming both ranks' hosts, the address and the variable; on
// this host, or with a real address, it is not.
func TestReachable(t *testing.T) {
	own := card{host: "nodeA/boot1"}
	same := card{host: "nodeA/boot1"}
	other := card{host: "nodeB/boot2"}
	for _, c := range []struct {
		to   card
		addr string
		want string
	}{
		{same, "tcp://127.0.0.1:5000", ""},
		{other, "tcp://10.0.0.2:5000", ""},
		{other, "tcp://127.0.0.1:5000", "rank 3 on host nodeB published tcp://127.0.0.1:5000, a loopback address, which this rank on host nodeA cannot reach: the job spans 2 hosts; name the interface between them with HPCBENCH_IFACE"},
	} {
		err := reachable(own, c.to, 3, c.addr, 2)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s from %s: %v", c.addr, c.to.host, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s from %s: %v, want %q", c.addr, c.to.host, err, c.want)
		}
	}
}
