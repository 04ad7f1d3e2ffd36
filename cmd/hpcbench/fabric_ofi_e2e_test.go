package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/report"
)

// requireLibfabric skips a test where libfabric cannot be loaded.
func requireLibfabric(t *testing.T) {
	t.Helper()
	if _, err := ofi.Version(); err != nil {
		t.Skipf("%v", err)
	}
}

// TestFabricOFILaunched: every fabric test over ofi:shm and ofi:tcp (RDM)
// and ofi:tcp's MSG endpoints under hpcbench launch -n 2, every message and
// write checked.
func TestFabricOFILaunched(t *testing.T) {
	requireLibfabric(t)
	for _, pe := range [][2]string{{"ofi:shm", "rdm"}, {"ofi:tcp", "rdm"}, {"ofi:tcp", "msg"}} {
		p, ep := pe[0], pe[1]
		for _, test := range []string{"pingpong", "bw", "rma_pingpong", "rma_bw"} {
			name := strings.ReplaceAll(p, ":", "_") + "/" + test
			if ep == "msg" {
				name = strings.ReplaceAll(p, ":", "_") + "_msg/" + test
			}
			t.Run(name, func(t *testing.T) {
				r := run(t, time.Minute, "launch", "-n", "2", "--", "hpcbench", "fabric", test, "-p", p, "-e", ep,
					"-S", "1,4k,1m", "-I", "100", "-c", "--format", "json")
				res := fabricJSON(t, r, test, 3)
				if res.Run.Env["provider"] != p || res.Run.Env["transport"] != p {
					t.Errorf("env %v; want provider and transport %s", res.Run.Env, p)
				}
				for _, row := range res.Tables[0].Rows {
					if row.Metrics[0] != 100 || row.Metrics[1] != 100 {
						t.Errorf("%s bytes: sent %g acked %g; want 100 each", row.Labels[0], row.Metrics[0], row.Metrics[1])
					}
				}
			})
		}
	}
	t.Run("allpairs", func(t *testing.T) {
		r := run(t, time.Minute, "launch", "-n", "3", "--", "hpcbench", "fabric", "allpairs", "-p", "ofi:shm", "-I", "50", "--bw-iters", "8", "--format", "json")
		if r.Code != 0 {
			t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
		}
		if _, err := report.ReadJSON(strings.NewReader(r.Stdout)); err != nil {
			t.Fatalf("JSON: %v\n%s", err, r.Stdout)
		}
	})
}

// TestFabricOFIServerClient: a server and a client over ofi:tcp (RDM and
// MSG endpoints) and ofi:shm print the same table, every message
// acknowledged.
func TestFabricOFIServerClient(t *testing.T) {
	requireLibfabric(t)
	for _, pe := range [][2]string{{"ofi:tcp", "rdm"}, {"ofi:tcp", "msg"}, {"ofi:shm", "rdm"}} {
		p, ep := pe[0], pe[1]
		t.Run(strings.ReplaceAll(p, ":", "_")+"_"+ep, func(t *testing.T) {
			serverClient(t, "pingpong", nil, "-p", p, "-e", ep)
		})
	}
}

// TestCollOFI: coll's collectives checked over --fabric ofi:shm and
// ofi:tcp.
func TestCollOFI(t *testing.T) {
	requireLibfabric(t)
	for _, p := range []string{"ofi:shm", "ofi:tcp"} {
		r := run(t, 2*time.Minute, "launch", "-n", "3", "--", "hpcbench", "coll", "--fabric", p, "-check", "-msglog", "0:16",
			"-iter", "10", "-time", "1", "--format", "json", "PingPong", "Allreduce", "Alltoall", "Bcast")
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", p, r.Code, r.Stderr)
		}
		res, err := report.ReadJSON(strings.NewReader(r.Stdout))
		if err != nil {
			t.Fatalf("%s: JSON: %v\n%s", p, err, r.Stdout)
		}
		if res.Run.Env["transport"] != p {
			t.Errorf("%s: transport %q", p, res.Run.Env["transport"])
		}
	}
}

// TestFabricOFIBadInput: bad ofi choices are refused in one line, exit 2,
// before any work.
func TestFabricOFIBadInput(t *testing.T) {
	requireLibfabric(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fabric", "pingpong", "-p", "ofi:nosuch"}, `-p ofi:nosuch: libfabric has no provider "nosuch" here`},
		{[]string{"fabric", "pingpong", "-p", "ofi:"}, `want ofi:PROVIDER`},
		{[]string{"fabric", "pingpong", "-p", "ofi:tcp", "-e", "dgram"}, "-e dgram: want rdm or msg"},
		{[]string{"fabric", "pingpong", "-p", "tcp", "-e", "rdm"}, "rdm is -p ofi:PROVIDER's"},
		{[]string{"fabric", "pingpong", "-p", "ofi:shm", "-e", "msg"}, "-e msg: libfabric's provider shm has no msg endpoints here: it has rdm"},
		{[]string{"coll", "--fabric", "ofi:nosuch"}, `libfabric has no provider "nosuch" here`},
	} {
		r := run(t, 30*time.Second, tc.args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, r.Code, r.Stderr, tc.want)
		}
	}
}

// TestFabricInfoOFI: fabric info -p ofi:shm lists libfabric's shm entries
// as fi_info does (golden, the library's version masked), and -p ofi
// lists tcp's domains, lo among them.
func TestFabricInfoOFI(t *testing.T) {
	requireLibfabric(t)
	r := run(t, 30*time.Second, "fabric", "info", "-p", "ofi:shm")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	got := regexp.MustCompile(`libfabric [0-9]+\.[0-9]+;`).ReplaceAllString(r.Stdout, "libfabric X.Y;")
	testenv.Golden(t, filepath.Join("testdata", "fabric_info_ofi_shm.golden"), []byte(got), *update)
	r = run(t, 30*time.Second, "fabric", "info", "-p", "ofi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "    provider: tcp;ofi_rxm\n        fabric: 127.0.0.1/32\n        domain: lo\n        type: rdm\n") {
		t.Errorf("-p ofi: exit %d\n%s", r.Code, r.Stdout)
	}
}
