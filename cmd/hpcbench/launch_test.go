package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/launch"
)

// TestHydraSpellings: Hydra's single-dash -np and -bind-to (and their =
// forms) are launch's options before the command, and left alone in the
// command's own arguments.
func TestHydraSpellings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		bind launch.Binding
		cmd  string
	}{
		{"-np 4 -- prog", 4, launch.BindNone, "prog"},
		{"-np=4 prog -np 2", 4, launch.BindNone, "prog -np 2"},
		{"-np 2 -bind-to core prog", 2, launch.BindCore, "prog"},
		{"-n 2 prog -np 3", 2, launch.BindNone, "prog -np 3"},
		{"-np 6 -- prog -np 1", 6, launch.BindNone, "prog -np 1"},
		{"-n 2 -bind-to core -- prog", 2, launch.BindCore, "prog"},
		{"-bind-to=hwthread -n 2 prog -bind-to x", 2, launch.BindHWThread, "prog -bind-to x"},
		{"--timeout 5s -bind-to socket prog", 1, launch.BindSocket, "prog"},
	} {
		o, err := parseLaunch(strings.Fields(tc.in), io.Discard)
		if err != nil || o.N != tc.n || o.Bind != tc.bind || strings.Join(o.Command, " ") != tc.cmd {
			t.Errorf("parseLaunch(%q): N %d bind %v command %q, %v; want N %d bind %v command %q",
				tc.in, o.N, o.Bind, o.Command, err, tc.n, tc.bind, tc.cmd)
		}
	}
}

// TestHostFlags: --hosts, --hostfile, --ppn and --rr in all their
// spellings give the job's size and its hosts, none when every host is
// this one.
func TestHostFlags(t *testing.T) {
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes")
	if err := os.WriteFile(nodes, []byte("# the rack\nn1 slots=2\nn2:2 # a comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local")
	if err := os.WriteFile(local, []byte("localhost slots=2\n"+hostname+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type hosts = []launch.HostRanks
	for _, tc := range []struct {
		in    string
		n     int
		hosts hosts
	}{
		{"prog", 1, nil},
		{"--hosts localhost:3 prog", 3, nil},
		{"-hosts localhost," + hostname + ":2 prog", 3, nil},
		{"-host 127.0.0.1 -n 4 prog", 4, nil},
		{"-f " + local + " prog", 3, nil},
		{"-ppn 2 prog", 2, nil},
		{"-ppn=2 -n 5 prog", 5, nil},
		{"--hosts a:2,b:2 prog", 4, hosts{{Name: "a", Ranks: []int{0, 1}}, {Name: "b", Ranks: []int{2, 3}}}},
		{"-hostlist a,b -n 3 prog", 3, hosts{{Name: "a", Ranks: []int{0, 2}}, {Name: "b", Ranks: []int{1}}}},
		{"-hosts a:4,b:4 -rr -n 5 prog", 5, hosts{{Name: "a", Ranks: []int{0, 2, 4}}, {Name: "b", Ranks: []int{1, 3}}}},
		{"-hosts a:4,b:4 -rr prog", 2, hosts{{Name: "a", Ranks: []int{0}}, {Name: "b", Ranks: []int{1}}}}, // --ppn 1 x 2 hosts
		{"-hosts a:4,b:4 --ppn 1 -n 3 prog", 3, hosts{{Name: "a", Ranks: []int{0, 2}}, {Name: "b", Ranks: []int{1}}}},
		{"-f " + nodes + " prog", 4, hosts{{Name: "n1", Ranks: []int{0, 1}}, {Name: "n2", Ranks: []int{2, 3}}}},
		{"-hostfile " + nodes + " -ppn 1 prog", 2, hosts{{Name: "n1", Ranks: []int{0}}, {Name: "n2", Ranks: []int{1}}}},
		{"-machinefile=" + nodes + " -n 6 prog", 6, hosts{{Name: "n1", Ranks: []int{0, 1, 4, 5}}, {Name: "n2", Ranks: []int{2, 3}}}},
		{"--hosts a,localhost prog", 2, hosts{{Name: "a", Ranks: []int{0}}, {Name: "localhost", Ranks: []int{1}}}},
	} {
		o, err := parseLaunch(strings.Fields(tc.in), io.Discard)
		if err != nil {
			t.Errorf("parseLaunch(%q): %v", tc.in, err)
		}
		if o.N != tc.n || !slices.EqualFunc(o.Hosts, tc.hosts, func(a, b launch.HostRanks) bool { return a.Name == b.Name && slices.Equal(a.Ranks, b.Ranks) }) {
			t.Errorf("parseLaunch(%q): N %d hosts %v; want N %d hosts %v", tc.in, o.N, o.Hosts, tc.n, tc.hosts)
		}
	}
}
