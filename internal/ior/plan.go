package ior

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/hpcbench/hpcbench/internal/ior/layout"
)

// plan is one rank's pass over a file: which file, whose data, and the
// offsets in order. Offsets are computed before the timed loop; offset
// reads them without allocating.
type plan struct {
	path    string
	pretend int // the rank whose data is moved
	count   int64
	lp      layout.Plan
}

// offset returns the file offset of the i-th transfer of the pass.
func (p *plan) offset(i int64) int64 { return p.lp.At(int(i % int64(p.lp.Len()))) }

// cursor walks a plan's offsets in order from one transfer on, wrapping
// round at the end as offset does, without offset's two divisions per
// transfer (a few per cent of a 4 KiB read from the page cache). next is
// small enough to be inlined into the timed loop.
type cursor struct {
	lp      *layout.Plan
	s, j    int // the segment and the transfer in it of the next offset
	k, segs int // the plan's PerSegment and Segments
}

// cursor returns a cursor at transfer from (from >= 0). Its next must not
// be called on a plan without transfers.
func (p *plan) cursor(from int64) cursor {
	c := cursor{lp: &p.lp, k: p.lp.PerSegment(), segs: p.lp.Segments()}
	if l := p.lp.Len(); l > 0 {
		n := int(from % int64(l))
		c.s, c.j = n/c.k, n%c.k
	}
	return c
}

// next returns the offset of the cursor's transfer and moves on to the
// following one.
func (c *cursor) next() int64 {
	off := c.lp.Offset(c.s, c.j)
	if c.j++; c.j == c.k {
		c.nextSegment()
	}
	return off
}

// nextSegment moves the cursor to the start of the following segment,
// or back to the first after the last.
func (c *cursor) nextSegment() {
	c.j = 0
	if c.s++; c.s == c.segs {
		c.s = 0
	}
}

// naming is the test's file naming; under -y the name carries this
// task's NUMA node.
func (t *tester) naming() layout.Naming {
	base := t.o.TestFile
	if t.o.DualMount {
		base = dualMountBase(base, t.numaNode)
	}
	return layout.Naming{Base: base, FilePerProc: t.o.FilePerProc, UniqueDir: t.o.UniqueDir, MultiFile: t.o.MultiFile}
}

// fileName is the file the data of rank r lives in, in repetition rep.
func (t *tester) fileName(r, rep int) string {
	return t.naming().Name(r, rep)
}

// geometry places the transfers; the seed of -z is derived from the
// signature unless --random-offset-seed is given.
func (t *tester) geometry() layout.Geometry {
	return layout.Geometry{
		BlockSize: t.o.BlockSize, TransferSize: t.o.TransferSize, Segments: int(t.o.SegmentCount),
		NumTasks: t.numTasks, FilePerProc: t.o.FilePerProc, RandomOffset: t.o.RandomOffset,
		Seed: layout.OffsetSeed(t.o.RandomOffsetSeed, t.sig),
	}
}

// reorder is the test's task reordering.
func (t *tester) reorder() layout.Reorder {
	r := layout.Reorder{Q: t.o.TaskPerNodeOffset, Seed: int64(t.o.ReorderTasksRandomSeed)}
	switch {
	case t.o.ReorderTasks:
		r.Mode = layout.Constant
	case t.o.ReorderTasksRandom == 1:
		r.Mode = layout.Random
	case t.o.ReorderTasksRandom > 1:
		r.Mode = layout.Shuffle
	}
	return r
}

// topology describes how the ranks sit on hosts: the launchers place ranks
// by slot (consecutive ranks fill a host first).
func (t *tester) topology() layout.Topology {
	perHost := t.env.HostRanks
	if perHost < 1 || perHost > t.numTasks {
		perHost = t.numTasks
	}
	nodes := min(max(1, t.env.Run.Hosts), t.numTasks)
	perHost = min(perHost, t.numTasks-nodes+1)
	return layout.Topology{NumTasks: t.numTasks, Nodes: nodes, TasksOnNode0: perHost, BySlot: perHost > 1 || t.numTasks == 1}
}

// layoutPhase is the layout's name for the access: whose data a rank
// moves depends on it (-C, -Z).
func (a access) layoutPhase() layout.Phase {
	switch a {
	case accRead:
		return layout.Read
	case accWriteCheck:
		return layout.CheckWrite
	}
	return layout.Write
}

// plan works out this rank's pass of the given access in repetition rep.
func (t *tester) plan(acc access, rep int) (*plan, error) {
	pretend, err := t.reorder().PretendRank(t.rank, t.topology(), acc.layoutPhase(), rep)
	if err != nil {
		return nil, fmt.Errorf("task reordering: %w", err)
	}
	g := t.geometry()
	path := t.fileName(pretend, rep)
	if acc == accRead && g.RandomOffset >= layout.RandomBlocks && !t.o.DryRun {
		if err := t.fitRandomRead(&g, path); err != nil {
			return nil, err
		}
	}
	lp, err := g.Plan(pretend)
	if err != nil {
		return nil, fmt.Errorf("offsets: %w", err)
	}
	count := int64(lp.Len())
	if limit := t.transferLimit(acc); limit >= 0 && limit < count {
		count = limit
	}
	return &plan{path: path, pretend: pretend, count: count, lp: lp}, nil
}

// fitRandomRead lets a -z -z read of a file smaller than the test's (one
// written with fewer segments, as IOR's testing/basic-tests.sh reads one)
// draw its random blocks from the blocks the file has, as IOR does (it
// draws from the file's size), instead of failing at the end of the file.
// IOR's size warnings follow the phase; rank 0 says why first. A file
// smaller than one block is an error; a missing one is left for the open
// to report.
func (t *tester) fitRandomRead(g *layout.Geometry, path string) error {
	size, err := t.be.FileSize(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the open names the missing file
	}
	if err != nil {
		return fmt.Errorf("-z -z read of %s: %w", path, err)
	}
	have, want := size/g.BlockSize, g.FileSize()/g.BlockSize
	switch {
	case have >= want:
		return nil
	case have == 0:
		return fmt.Errorf("-z -z read of %s: %d bytes, less than one block (-b %d)", path, size, g.BlockSize)
	}
	g.FileBlocks = have
	if t.rank == 0 {
		t.env.Warn(fmt.Sprintf("WARNING: -z -z read: %s holds %d blocks of -b %d, fewer than the test's %d; reading random blocks among those",
			path, have, g.BlockSize, want))
	}
	return nil
}

// transferLimit is how many transfers a pass makes when stonewalling cut
// the write short, or -1 for all of them: the check and the read then
// cover what every rank wrote.
func (t *tester) transferLimit(acc access) int64 {
	if t.o.StoneWallingWearOutIterations > 0 && acc != accWrite {
		return int64(t.o.StoneWallingWearOutIterations)
	}
	if acc != accWrite && t.stoneRead >= 0 {
		return t.stoneRead
	}
	return -1
}
