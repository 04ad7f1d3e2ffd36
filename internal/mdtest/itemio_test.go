package mdtest

import (
	"runtime"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// posix.Backend and dummy.Backend offer the one-call item operations.
var (
	_ itemIO = (*posix.Backend)(nil)
	_ itemIO = (*dummy.Backend)(nil)
)

// TestLoopsDoNotAllocate runs every item phase's operation over its
// items, each path derived in the runner's buffer as the timed loop does,
// with the POSIX and DUMMY backends and -w/-e 4096 and -R's order for the
// stats, and checks that nothing is allocated: the promise that lets
// itemPhase skip its collection before the loop.
func TestLoopsDoNotAllocate(t *testing.T) {
	for _, newBackend := range []func(aiori.Options, aiori.Env) (aiori.Backend, error){posix.New, dummy.New} {
		be, err := newBackend(nil, aiori.Env{})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(be.Name(), func(t *testing.T) { loopsDoNotAllocate(t, be) })
	}
}

// loopsDoNotAllocate is TestLoopsDoNotAllocate with one backend.
func loopsDoNotAllocate(t *testing.T, be aiori.Backend) {
	const n = 50
	r := &runner{
		o:      &config.Options{WriteBytes: 4096, ReadBytes: 4096, RandomStat: true, Dirs: []string{t.TempDir()}},
		be:     be,
		md:     be.(aiori.Metadata),
		iio:    be.(itemIO),
		buf:    aiori.AlignedBuffer(4096),
		rbuf:   aiori.AlignedBuffer(4096),
		layout: config.Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: n, DirLoops: 1, ItemsPerRank: n},
		items:  n,
		pb:     newPathBuf(true),
		rb:     newPathBuf(true),
	}
	if err := r.mkdirAll(r.dirPath(r.tree(0), 0, 0)); err != nil {
		t.Fatal(err)
	}
	phases := []struct {
		name string
		op   func() opFunc // made before the loop, as iteration does
	}{
		{phDirCreate, func() opFunc { return r.dirCreate }},
		{phDirStat, func() opFunc { return r.dirStat }},
		{phDirRename, func() opFunc { return r.dirRename }},
		{phDirRemove, func() opFunc { r.renamed = true; return r.dirRemove }},
		{phFileCreate, func() opFunc { return r.fileCreate }},
		{phFileStat, func() opFunc { return r.fileStat }},
		{phFileRead, func() opFunc { return r.fileRead }},
		{phFileRemove, func() opFunc { return r.fileRemove }},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, ph := range phases {
		op := ph.op()
		ps := r.phaseItems(ph.name, 0)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		failed := 0
		for i := range ps.n {
			if op(r.path(&ps, i)) != nil {
				failed++
			}
		}
		runtime.ReadMemStats(&after)
		if failed > 0 {
			t.Fatalf("%s: %d of %d operations failed", ph.name, failed, ps.n)
		}
		if got := after.Mallocs - before.Mallocs; got != 0 {
			t.Errorf("%s: %d allocations in the loop over %d items; want 0", ph.name, got, ps.n)
		}
	}
}
