package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestLaunchHostsThisHost: host lists and hostfiles whose hosts are all
// this one run the job here, its size the hosts' slots (or --ppn per
// host) when -n is left out; MPICH-style ranks see one node.
func TestLaunchHostsThisHost(t *testing.T) {
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hostfile := filepath.Join(dir, "nodes")
	if err := os.WriteFile(hostfile, []byte("# Open MPI's format\nlocalhost slots=2 max_slots=4\n\n"+hostname+":1 # Hydra's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	echo := []string{"--", "sh", "-c", `echo "$PMI_SIZE"`}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosts", "localhost:3"}, "3\n3\n3\n"},
		{[]string{"-hosts", "localhost," + hostname}, "2\n2\n"},
		{[]string{"-f", hostfile}, "3\n3\n3\n"},
		{[]string{"-machinefile", hostfile, "-n", "4"}, "4\n4\n4\n4\n"},
		{[]string{"-ppn", "2"}, "2\n2\n"},
		{[]string{"-hosts", "127.0.0.1", "-rr", "-n", "2"}, "2\n2\n"},
	} {
		r := testenv.Run(t, testenv.Context(t, 30*time.Second), dir, noPMIEnv, hpcbench, append(append([]string{"launch"}, tc.args...), echo...)...)
		if r.Code != 0 || r.Stdout != tc.want || r.Stderr != "" {
			t.Errorf("launch %q: exit %d, stdout %q, stderr %q; want %q", tc.args, r.Code, r.Stdout, r.Stderr, tc.want)
		}
	}
	// wireup's ranks see the job's size and join its PMI.
	r := run(t, time.Minute, "launch", "--hosts", "localhost:2,"+hostname+":2", "--", "hpcbench", "wireup", "--json")
	wireupResult(t, r, 4, 4)
}

// TestLaunchHostfileErrorLine: a bad hostfile line is refused naming the
// file and the line, before any rank starts.
func TestLaunchHostfileErrorLine(t *testing.T) {
	dir := t.TempDir()
	hostfile := filepath.Join(dir, "nodes")
	if err := os.WriteFile(hostfile, []byte("# rack 1\nn1 slots=4\nn2 slots=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	r := run(t, 30*time.Second, "launch", "--hostfile", hostfile, "--", "touch", marker)
	want := "hpcbench: launch: --hostfile " + hostfile + `:3: slots "0": want a whole number from 1 to 65536` + "\n"
	if r.Code != 2 || r.Stdout != "" || r.Stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", r.Code, r.Stdout, r.Stderr, want)
	}
	if _, err := os.Stat(marker); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a rank ran: %v", err)
	}
}
