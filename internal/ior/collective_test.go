package ior

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/report"
)

// table returns res's table named name, or nil.
func table(res *report.Result, name string) *report.Table {
	for i := range res.Tables {
		if res.Tables[i].Name == name {
			return &res.Tables[i]
		}
	}
	return nil
}

// collRows returns the archive's collective table as "access iter mode
// aggregators rounds" lines.
func collRows(t *testing.T, res *report.Result) []string {
	t.Helper()
	tb := table(res, CollectiveTable)
	if tb == nil {
		t.Fatalf("no %q table", CollectiveTable)
	}
	var out []string
	for _, r := range tb.Rows {
		out = append(out, fmt.Sprintf("%s %s %s %g %g", r.Labels[1], r.Labels[2], r.Labels[3], r.Metrics[0], r.Metrics[1]))
	}
	return out
}

// hostsTweak gives rank r the host hosts[r].
func hostsTweak(hosts ...string) func(int, *Env) {
	return func(_ int, env *Env) {
		env.RankHosts = hosts
		env.Run.Hosts = len(slices.Compact(slices.Clone(hosts)))
	}
}

// TestCollectiveWritesWhatIndependentWrites: a file written with -c is
// byte for byte the file written without it, read back and checked with
// -c (-W, -R) without an error, for ior-hard's interleaved pattern, with
// one aggregator and with one per (fake) host, rounds that split
// transfers, and for patterns -c does independently.
func TestCollectiveWritesWhatIndependentWrites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		ranks int
		hosts []string
		args  string
		want  []string // the collective table's rows: access iter mode
	}{
		{"ior-hard one host", 2, []string{"h", "h"}, "-t 4704 -b 4704 -s 40 -O cb_buffer_size=10000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"ior-hard two hosts", 2, []string{"a", "b"}, "-t 4704 -b 4704 -s 40 -O cb_buffer_size=10000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"three ranks two hosts", 3, []string{"a", "a", "b"}, "-t 1000 -b 3000 -s 7 --cb_buffer_size 4096",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"cb_config_list *:* cb_nodes 3", 3, []string{"a", "a", "a"}, "-t 1000 -b 3000 -s 7 -O cb_config_list=*:*,cb_nodes=3",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"reorder -C", 2, []string{"h", "h"}, "-t 4704 -b 4704 -s 9 -C -O cb_buffer_size=7000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"-N 2 of 3", 3, []string{"a", "b", "c"}, "-N 2 -t 800 -b 800 -s 11 -O cb_buffer_size=3000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		// Parts of 16 KiB and more go as messages of their own: writes
		// of timestamp data from the transfer buffer, reads always.
		{"direct parts timestamp", 2, []string{"h", "h"}, "-l timestamp -t 47008 -b 47008 -s 30 -O cb_buffer_size=600000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"direct parts two hosts", 3, []string{"a", "b", "b"}, "-l timestamp -t 20000 -b 40000 -s 9 -O cb_buffer_size=250000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"direct reads, packed offset writes", 2, []string{"a", "b"}, "-t 47008 -b 47008 -s 30 -O cb_buffer_size=600000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		// One collective call per transfer, as IOR makes them: ROMIO's
		// automatic mode finds no call interleaved and falls back, and
		// enable makes each call a two-phase call.
		{"per transfer automatic", 2, []string{"a", "b"}, "-t 4704 -b 4704 -s 12 -O collectiveCall=transfer",
			[]string{"write 0 independent", "check 0 independent", "read 0 independent"}},
		{"per transfer enable", 3, []string{"a", "b", "b"}, "-t 4704 -b 9408 -s 5 -C -O collectiveCall=transfer,romio_cb_write=enable,romio_cb_read=enable,cb_buffer_size=5000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"per transfer -N", 3, []string{"a", "b", "c"}, "-N 2 -t 4704 -b 4704 -s 4 -O collectiveCall=transfer,romio_cb_write=enable",
			[]string{"write 0 collective", "check 0 independent", "read 0 independent"}},
		{"fallback: contiguous blocks", 2, []string{"a", "b"}, "-t 1024 -b 8192 -s 1",
			[]string{"write 0 independent", "check 0 independent", "read 0 independent"}},
		{"fallback: romio_cb_write=disable", 2, []string{"h", "h"}, "-t 4704 -b 4704 -s 5 -O romio_cb_write=disable",
			[]string{"write 0 independent", "check 0 collective", "read 0 collective"}},
		{"-F enable: each rank aggregates its own", 2, []string{"h", "h"}, "-F -t 1000 -b 5000 -s 3 -O romio_cb_write=enable,romio_cb_read=enable,cb_buffer_size=4096",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
		{"-F automatic falls back", 2, []string{"h", "h"}, "-F -t 1000 -b 5000 -s 3",
			[]string{"write 0 independent", "check 0 independent", "read 0 independent"}},
		{"fsync per write and at the end", 2, []string{"h", "h"}, "-t 4704 -b 4704 -s 6 -Y -e -O cb_buffer_size=10000",
			[]string{"write 0 collective", "check 0 collective", "read 0 collective"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			base := "-a POSIX -w -W -r -R -k -G 12345 -l offset " + tc.args
			ind := filepath.Join(dir, "ind")
			j := runJobWith(t, tc.ranks, base+" -o "+ind, false, nil, hostsTweak(tc.hosts...))
			noErrors(t, j)
			coll := filepath.Join(dir, "coll")
			call := ""
			if !strings.Contains(tc.args, "collectiveCall") {
				call = " -O collectiveCall=phase" // the default is one call per transfer, as IOR's
			}
			j = runJobWith(t, tc.ranks, base+" -c"+call+" -o "+coll, false, nil, hostsTweak(tc.hosts...))
			noErrors(t, j)
			var modes []string
			for _, r := range collRows(t, j.res) {
				f := strings.Fields(r)
				modes = append(modes, strings.Join(f[:3], " "))
			}
			if !slices.Equal(modes, tc.want) {
				t.Errorf("phases %q, want %q (warnings %q)", modes, tc.want, j.warn)
			}
			names := []string{""}
			if strings.Contains(tc.args, "-F") {
				names = []string{".00000000", ".00000001"}
			}
			for _, n := range names {
				a, err := os.ReadFile(ind + n)
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(coll + n)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s: -c wrote %d bytes that differ from the %d independent I/O wrote", n, len(b), len(a))
				}
				if len(a) == 0 {
					t.Errorf("%s: empty file", n)
				}
			}
		})
	}
}

// TestCollectiveAggregatorsAndRounds: the record names the aggregators and
// rounds ROMIO's method gives: one per host, 16 MiB rounds by default.
func TestCollectiveAggregatorsAndRounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// 2 ranks × 200 segments × 47008 bytes = 18.8 MB: two rounds of 16
	// MiB on one aggregator, one round each on two.
	args := "-a POSIX -w -r -c -O collectiveCall=phase -t 47008 -b 47008 -s 200 -o " + filepath.Join(dir, "f")
	j := runJobWith(t, 2, args, false, nil, hostsTweak("h", "h"))
	noErrors(t, j)
	if got, want := collRows(t, j.res), []string{"write 0 collective 1 2", "read 0 collective 1 2"}; !slices.Equal(got, want) {
		t.Errorf("one host: %q, want %q", got, want)
	}
	j = runJobWith(t, 2, args, false, nil, hostsTweak("a", "b"))
	noErrors(t, j)
	if got, want := collRows(t, j.res), []string{"write 0 collective 2 1", "read 0 collective 2 1"}; !slices.Equal(got, want) {
		t.Errorf("two hosts: %q, want %q", got, want)
	}
	var opts []string
	for _, r := range table(j.res, report.IORTableName(0, report.IOROptions)).Rows {
		opts = append(opts, strings.Join(r.Labels, "|"))
	}
	for _, want := range []string{"cb_nodes|string|0 (one per host)", "cb_buffer_size|string|16777216", "romio_cb_write|string|automatic",
		"collective write|string|collective: 2 aggregators, 1 round of cb_buffer_size 16777216 (romio_cb_write=automatic: the accesses interleave)"} {
		if !slices.Contains(opts, want) {
			t.Errorf("Options block lacks %q: %q", want, opts)
		}
	}
}

// TestCollectiveFallbackSaysSo: an automatic fallback is said on stderr
// and in the record.
func TestCollectiveFallbackSaysSo(t *testing.T) {
	t.Parallel()
	j := runJob(t, 2, "-a POSIX -w -r -c -O collectiveCall=phase -t 4k -b 64k -o "+filepath.Join(t.TempDir(), "f"), false)
	noErrors(t, j)
	want := "NOTE: collective I/O: write, iteration 0: independent (romio_cb_write=automatic: the accesses do not interleave)"
	if !slices.Contains(j.warn, want) {
		t.Errorf("warnings %q lack %q", j.warn, want)
	}
	tb := table(j.res, CollectiveTable)
	if tb == nil || tb.Rows[0].Labels[4] != "romio_cb_write=automatic: the accesses do not interleave" {
		t.Errorf("collective table: %+v", tb)
	}
}

// TestCollectiveReadFindsCorruption: a collective read checks what it
// delivers: data written with another signature is counted corrupt.
func TestCollectiveReadFindsCorruption(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "f")
	noErrors(t, runJob(t, 2, "-a POSIX -w -k -G 1 -t 4704 -b 4704 -s 10 -o "+f, false))
	j := runJob(t, 2, "-a POSIX -r -R -c -k -G 2 -t 4704 -b 4704 -s 10 -O cb_buffer_size=7000,collectiveCall=phase -o "+f, false)
	for r, err := range j.errs {
		if !errors.Is(err, ErrVerify) {
			t.Errorf("rank %d: %v, want ErrVerify", r, err)
		}
	}
	if rows := collRows(t, j.res); len(rows) != 1 || !strings.HasPrefix(rows[0], "read 0 collective") {
		t.Errorf("phases %q", rows)
	}
}

// TestCollectiveDefaultIsPerTransfer: -c alone makes one collective call
// per transfer, as IOR calls MPI-IO, so ior-hard's pattern falls back
// call by call as it does under ROMIO, and the record says so.
func TestCollectiveDefaultIsPerTransfer(t *testing.T) {
	t.Parallel()
	j := runJobWith(t, 2, "-a POSIX -w -r -c -t 4704 -b 4704 -s 7 -o "+filepath.Join(t.TempDir(), "f"), false, nil, hostsTweak("a", "b"))
	noErrors(t, j)
	var opts []string
	for _, r := range table(j.res, report.IORTableName(0, report.IOROptions)).Rows {
		opts = append(opts, strings.Join(r.Labels, "|"))
	}
	for _, want := range []string{"collectiveCall|string|transfer", "collective write|string|one call per transfer, each deciding (romio_cb_write=automatic)"} {
		if !slices.Contains(opts, want) {
			t.Errorf("Options block lacks %q: %q", want, opts)
		}
	}
	if got, want := collRows(t, j.res), []string{"write 0 independent 0 0", "read 0 independent 0 0"}; !slices.Equal(got, want) {
		t.Errorf("phases %q, want %q", got, want)
	}
}

// TestCollectivePerTransferRecord: with -O collectiveCall=transfer the
// record counts the calls and how many were collective.
func TestCollectivePerTransferRecord(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "f")
	j := runJobWith(t, 2, "-a POSIX -w -r -c -t 4704 -b 4704 -s 7 -O collectiveCall=transfer,romio_cb_read=enable -o "+f, false, nil, hostsTweak("a", "b"))
	noErrors(t, j)
	tb := table(j.res, CollectiveTable)
	var got []string
	for _, r := range tb.Rows {
		got = append(got, fmt.Sprintf("%s %s %s calls %g collective %g", r.Labels[1], r.Labels[3], r.Labels[4], r.Metrics[3], r.Metrics[4]))
	}
	want := []string{
		"write independent romio_cb_write=automatic: the accesses of no call interleave calls 7 collective 0",
		"read collective romio_cb_read=enable calls 7 collective 7",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	note := "NOTE: collective I/O: write, iteration 0: one call per transfer: 7 calls, 0 collective (romio_cb_write=automatic: the accesses of no call interleave)"
	if !slices.Contains(j.warn, note) {
		t.Errorf("warnings %q lack %q", j.warn, note)
	}
}

// TestCollectiveODirect: with --posix.odirect the file domains end on
// 4096-byte boundaries (three aggregators would otherwise split a 4 KiB
// block), and cb_buffer_size and striping_unit must be multiples of 4096,
// refused in one line before any work.
func TestCollectiveODirect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hints, err string }{
		{"cb_buffer_size=1000000", "-c with -a POSIX's aligned transfers (--posix.odirect): cb_buffer_size 1000000: want a multiple of 4096 bytes"},
		{"striping_unit=1000", "-c with -a POSIX's aligned transfers (--posix.odirect): striping_unit 1000: want a multiple of 4096 bytes"},
	} {
		_, err := config.Parse(strings.Fields("-c -t 4k -b 4k --posix.odirect -O "+tc.hints), testRegistry(t))
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s: %v, want %q", tc.hints, err, tc.err)
		}
	}
	dir, err := os.MkdirTemp("/var/tmp", "iorc") // tmpfs has no O_DIRECT
	if err != nil {
		t.Skipf("no /var/tmp: %v", err)
	}
	defer os.RemoveAll(dir)
	// 4 ranks on 3 hosts, 5 segments of one 4 KiB block each: 20 blocks
	// over 3 aggregators would split at byte 27307, inside a sector.
	j := runJobWith(t, 4, "-a POSIX --posix.odirect -c -w -r -W -R -G 9 -t 4k -b 4k -s 5 -O cb_buffer_size=8k,collectiveCall=phase -o "+filepath.Join(dir, "f"),
		false, nil, hostsTweak("a", "b", "c", "c"))
	noErrors(t, j)
	if rows := collRows(t, j.res); len(rows) != 3 || !strings.HasPrefix(rows[0], "write 0 collective 3") {
		t.Errorf("phases %q", rows)
	}
}
