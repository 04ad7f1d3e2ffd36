package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestIface: HPCBENCH_IFACE names the interface the ranks publish (lo
// here, with tcp between them), and the run record says so; a name this
// host lacks is refused before any work, in one line naming the variable.
func TestIface(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "coll.json")
	env := append(append([]string{}, noPMIEnv...), "HPCBENCH_IFACE=lo")
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "coll", "--fabric", "tcp", "-msglog", "0:2", "Barrier", "--archive", archive)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Run struct{ Env map[string]string }
	}
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if a.Run.Env["iface"] != "lo" || a.Run.Env["transport"] != "tcp" {
		t.Errorf("run record env %v: want iface lo and transport tcp", a.Run.Env)
	}

	out := filepath.Join(dir, "ior.dat")
	env = append(append([]string{}, noPMIEnv...), "HPCBENCH_IFACE=nosuch0")
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "ior", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-o", out)
	if r.Code != 2 {
		t.Errorf("exit %d, want 2", r.Code)
	}
	var ours []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(l, "hpcbench: ior:") {
			ours = append(ours, l)
		}
	}
	if len(ours) != 1 || !strings.HasPrefix(ours[0], "hpcbench: ior: HPCBENCH_IFACE=nosuch0: no such interface or local address: have ") {
		t.Errorf("lines %q, want one naming HPCBENCH_IFACE\n%s", ours, r.Stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
