package io500

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/jobtest"
)

// makeTree writes a data dir like IO500's after its write phases: big
// files, a tree of small ones before the timestamp, and one directory of
// 3901-byte files after it, some of another size. It returns the
// timestamp, the files that match and the files in all.
func makeTree(t *testing.T, dir string) (time.Time, int64, int64) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	var total, found int64
	write := func(p string, size int, mtime time.Time) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		total++
	}
	write(filepath.Join(dir, "ior-easy", "ior_file_easy.00000001"), 100, old)
	for d := range 5 {
		for i := range 40 {
			// Old 3901-byte files with 01 in the name: not newer.
			write(filepath.Join(dir, "mdtest-easy", fmt.Sprintf("tree.%d", d), "sub", fmt.Sprintf("file.mdtest.%d.%d", d, i)), 3901, old)
		}
	}
	ts := time.Now().Add(-time.Minute)
	for i := range 500 {
		size := 3901
		if i%7 == 0 {
			size = 3900
		}
		name := fmt.Sprintf("file.mdtest.%d.%d", i%2, i)
		write(filepath.Join(dir, "mdtest-hard", "test-dir.0-0", "mdtest_tree.0", name), size, ts.Add(time.Second))
		if size == 3901 && contains01(name) {
			found++
		}
	}
	return ts, found, total
}

func contains01(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '0' && s[i+1] == '1' {
			return true
		}
	}
	return false
}

// TestFindOverRanks: every rank count finds the same files, the work is
// shared (with more than one rank, items move from rank 0), and every
// rank returns the job's counts.
func TestFindOverRanks(t *testing.T) {
	dir := t.TempDir()
	ts, found, total := makeTree(t, dir)
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint(n, " ranks"), func(t *testing.T) {
			var mu sync.Mutex
			var got []FindResult
			errs := jobtest.Run(t, n, nil, func(ctx context.Context, c *collectives.Comm) error {
				// A round of a few microseconds makes many rounds: the
				// rebalancing runs often.
				r, err := Find(ctx, c, FindQuery{Dir: dir, Newer: ts, Size: 3901, Substr: "01", Round: 10 * time.Microsecond, FS: osFS(t)})
				mu.Lock()
				got = append(got, r)
				mu.Unlock()
				return err
			})
			jobtest.NoErrors(t, errs)
			for _, r := range got {
				if r.Found != found || r.Total != total || r.Errors != 0 {
					t.Errorf("found %d of %d (%d errors), want %d of %d", r.Found, r.Total, r.Errors, found, total)
				}
				if n > 1 && r.Moved == 0 {
					t.Errorf("no work moved between %d ranks", n)
				}
			}
		})
	}
}

func TestFindMissingDir(t *testing.T) {
	errs := jobtest.Run(t, 2, nil, func(ctx context.Context, c *collectives.Comm) error {
		r, err := Find(ctx, c, FindQuery{Dir: filepath.Join(t.TempDir(), "none"), Size: 3901, Substr: "01", FS: osFS(t)})
		if err == nil && (r.Errors != 1 || r.Total != 0) {
			return fmt.Errorf("missing dir: %+v, want one error and nothing found", r)
		}
		return err
	})
	jobtest.NoErrors(t, errs)
}

func TestPlanTransfers(t *testing.T) {
	for _, c := range []struct {
		lens []int64
		want []transfer
	}{
		{[]int64{10, 0}, []transfer{{0, 1, 5}}},
		{[]int64{9, 0, 0}, []transfer{{0, 1, 3}, {0, 2, 3}}},
		{[]int64{1, 0, 0}, nil}, // the remainder stays on the first rank
		{[]int64{0, 0, 7}, []transfer{{2, 0, 3}, {2, 1, 2}}},
		{[]int64{4, 4}, nil},
	} {
		got := plan(c.lens)
		if !slices.Equal(got, c.want) {
			t.Errorf("plan(%v) = %v, want %v", c.lens, got, c.want)
		}
		after := slices.Clone(c.lens)
		for _, tr := range got {
			after[tr.from] -= int64(tr.n)
			after[tr.to] += int64(tr.n)
		}
		lo, hi := slices.Min(after), slices.Max(after)
		if hi-lo > 1 {
			t.Errorf("plan(%v) leaves %v", c.lens, after)
		}
	}
}

func FuzzDecodeItems(f *testing.F) {
	f.Add(encodeItems([]string{"d/data", "f/data/x/file.01"}))
	f.Add([]byte{0x05, 'd', '/', 'x'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := decodeItems(b)
		if err != nil {
			return
		}
		// What decodes encodes back to the same message.
		if got := encodeItems(items); string(got) != string(b) {
			t.Fatalf("decode then encode: %q, want %q", got, b)
		}
	})
}

func osFS(t *testing.T) FS {
	t.Helper()
	f, err := NewOSFS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
