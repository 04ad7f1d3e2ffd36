package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// TestIORCollective: `hpcbench launch -n 2 -- hpcbench ior -c` on
// ior-hard's pattern writes the file independent I/O writes, byte for
// byte, reads it back and checks it collectively (-W, -R), with one
// aggregator on one host and one per host on two (fake) hosts, and says
// so in the Options block; POSIX and DFS.
func TestIORCollective(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	hard := []string{"-t", "47008", "-b", "47008", "-s", "30", "-w", "-r", "-W", "-R", "-k", "-G", "31415", "-l", "offset"}
	run := func(t *testing.T, launch []string, args ...string) string {
		t.Helper()
		all := append(append(append([]string{"launch"}, launch...), "--", hpcbench, "ior"), args...)
		r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, all...)
		mustExit0(t, r)
		return r.Stdout
	}
	for _, tc := range []struct {
		name   string
		launch []string
		want   string
	}{
		{"one host", []string{"-n", "2"}, "collective write    : collective: 1 aggregator, 3 rounds of cb_buffer_size 1000000 (romio_cb_write=automatic: the accesses interleave)"},
		{"two hosts", []string{"-hosts", "h1,h2", "-launcher", "fork", "--iface", "lo", "-n", "2"},
			"collective write    : collective: 2 aggregators, 2 rounds of cb_buffer_size 1000000 (romio_cb_write=automatic: the accesses interleave)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ind, coll := filepath.Join(dir, tc.name+".ind"), filepath.Join(dir, tc.name+".coll")
			run(t, tc.launch, append(hard, "-o", ind)...)
			out := run(t, tc.launch, append(hard, "-c", "-O", "cb_buffer_size=1000000,collectiveCall=phase", "-o", coll)...)
			wantIn(t, out, "type                : collective", "cb_buffer_size      : 1000000", tc.want,
				"collective read     : collective:")
			a, err := os.ReadFile(ind)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(coll)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != 2*30*47008 || !bytes.Equal(a, b) {
				t.Errorf("-c wrote %d bytes, independent I/O %d: they differ", len(b), len(a))
			}
		})
	}
	t.Run("one call per transfer, the default", func(t *testing.T) {
		all := append([]string{"launch", "-n", "2", "--", hpcbench, "ior"}, append(hard, "-c", "-o", filepath.Join(dir, "t"))...)
		r := testenv.Run(t, testenv.Context(t, 2*time.Minute), dir, noPMIEnv, hpcbench, all...)
		mustExit0(t, r)
		wantIn(t, r.Stdout, "collectiveCall      : transfer", "collective write    : one call per transfer, each deciding (romio_cb_write=automatic)")
		wantIn(t, r.Stderr, "NOTE: collective I/O: write, iteration 0: one call per transfer: 30 calls, 0 collective (romio_cb_write=automatic: the accesses of no call interleave)")
	})
	t.Run("DFS", func(t *testing.T) {
		out := run(t, []string{"-n", "2"}, append(hard, "-c", "-a", "DFS", "--dfs.pool", pool, "--dfs.cont", "c", "-O", "cb_buffer_size=300000,collectiveCall=phase", "-o", "/f")...)
		wantIn(t, out, "api                 : DFS", "collective write    : collective: 1 aggregator, 10 rounds")
		if rows := iorRows(out); !rows["write"] || !rows["read"] {
			t.Errorf("no write and read rows:\n%s", out)
		}
	})
	t.Run("bad hint", func(t *testing.T) {
		r := testenv.Run(t, testenv.Context(t, time.Minute), dir, append(noPMIEnv, "IOR_HINT__MPI__cb_nodes=none"), hpcbench, "ior", "-c")
		if r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, `cb_nodes "none": want an integer from 1 to`) {
			t.Errorf("exit %d, stderr %q: want 2 and one line naming cb_nodes", r.Code, r.Stderr)
		}
	})
}
