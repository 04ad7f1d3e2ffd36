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

// TestIfaceOption: --iface is HPCBENCH_IFACE as an option of every
// command that runs ranks (and wins over the variable): the ranks publish
// it and the run record says so; a name or address this host lacks, an
// empty one or a missing value is refused in one line naming the option,
// exit 2, before any work.
func TestIfaceOption(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "coll.json")
	env := append(append([]string{}, noPMIEnv...), "HPCBENCH_IFACE=nosuch0") // the option wins
	r := testenv.Run(t, testenv.Context(t, time.Minute), dir, env, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "coll", "--iface", "lo", "--fabric", "tcp", "-msglog", "0:2", "Barrier", "--archive", archive)
	mustExit0(t, r)
	if rec := readRunArchive(t, archive).Run; rec.Env["iface"] != "lo" || rec.Env["transport"] != "tcp" {
		t.Errorf("run record env %v: want iface lo and transport tcp", rec.Env)
	}
	r = testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench,
		"launch", "-n", "2", "--", hpcbench, "wireup", "--iface=127.0.0.1")
	mustExit0(t, r)

	out := filepath.Join(dir, "ior.dat")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ior", "--iface", "nosuch0", "-a", "POSIX", "-b", "1m", "-t", "64k", "-w", "-o", out},
			`hpcbench: ior: --iface "nosuch0": no such interface or local address: have `},
		{[]string{"mdtest", "-n", "5", "-d", out, "--iface=192.0.2.7"}, `hpcbench: mdtest: --iface "192.0.2.7": no such interface or local address: have `},
		{[]string{"fabric", "pingpong", "-p", "tcp", "--iface="}, `hpcbench: fabric: --iface "": `},
		{[]string{"coll", "Barrier", "--iface"}, "hpcbench: coll: --iface: needs a value (an interface name or an address of this host)"},
	} {
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, c.args...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, c.want) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line starting %q", c.args, r.Code, r.Stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: %s was created", c.args, out)
		}
	}
}
