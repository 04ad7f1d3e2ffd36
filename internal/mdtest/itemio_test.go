package mdtest

import (
	"runtime"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// posix.Backend offers the one-call item operations.
var _ itemIO = (*posix.Backend)(nil)

// TestPOSIXLoopsDoNotAllocate runs every item phase's operation over its
// paths, as the timed loop does, with the POSIX backend and -w/-e 4096,
// and checks that nothing is allocated: the promise that lets itemPhase
// skip its collection before the loop.
func TestPOSIXLoopsDoNotAllocate(t *testing.T) {
	const n = 50
	be, err := posix.New(nil, aiori.Env{})
	if err != nil {
		t.Fatal(err)
	}
	pb := be.(*posix.Backend)
	r := &runner{
		o:      &config.Options{WriteBytes: 4096, ReadBytes: 4096},
		be:     be,
		md:     pb,
		iio:    pb,
		buf:    aiori.AlignedBuffer(4096),
		rbuf:   aiori.AlignedBuffer(4096),
		dirs:   []string{t.TempDir()},
		layout: config.Layout{TreeDirs: 1, Leaves: 1, ItemDirs: 1, ItemsPerDir: n, DirLoops: 1, ItemsPerRank: n},
		items:  n,
	}
	if err := pb.Mkdir(r.trees(0)[0].paths[0], 0o755); err != nil {
		t.Fatal(err)
	}
	phases := []struct {
		name string
		op   func() opFunc // made before the loop, as iteration does
	}{
		{phDirCreate, func() opFunc { return r.dirCreate }},
		{phDirStat, func() opFunc { return r.dirStat }},
		{phDirRename, func() opFunc { return r.dirRenamer(0) }},
		{phDirRemove, func() opFunc { r.renamed = true; return r.dirRemove }},
		{phFileCreate, func() opFunc { return r.fileCreate }},
		{phFileStat, func() opFunc { return r.fileStat }},
		{phFileRead, func() opFunc { return r.fileRead }},
		{phFileRemove, func() opFunc { return r.fileRemove }},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, ph := range phases {
		op := ph.op()
		ps := r.paths(ph.name, 0)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		failed := 0
		for _, p := range ps {
			if op(p) != nil {
				failed++
			}
		}
		runtime.ReadMemStats(&after)
		if failed > 0 {
			t.Fatalf("%s: %d of %d operations failed", ph.name, failed, len(ps))
		}
		if got := after.Mallocs - before.Mallocs; got != 0 {
			t.Errorf("%s: %d allocations in the loop over %d items; want 0", ph.name, got, len(ps))
		}
	}
}
