package ior

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/pattern"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/ior/layout"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
)

// Collective I/O (-c) is ROMIO's two-phase method over the job's
// collectives (see internal/ior/twophase): one collective call per
// transfer by default, as IOR makes one MPI_File_write_at_all per
// transfer, or, with -O collectiveCall=phase, one per phase over the
// whole of each rank's access (collcall.go). The ranks sharing a file (the job,
// or each rank alone with -F, as IOR opens a file per process on
// MPI_COMM_SELF) gather who moves whose data and how much, decide between
// collective and independent I/O as romio_cb_write and romio_cb_read say,
// and, collectively, move every byte through the aggregators in rounds of
// cb_buffer_size (collround.go).

// collMember is what one rank of a collective phase tells the others: the
// rank whose data it moves (-C, -Z) and how many transfers.
type collMember struct {
	pretend int
	count   int64
}

// collDecision is how a phase is done, for the run record.
type collDecision struct {
	collective bool
	// why says what decided: "romio_cb_write=enable", or the automatic
	// mode's finding.
	why  string
	plan *twophase.Plan // nil when independent
	reqs []twophase.Request
	// perCall is set for -O collectiveCall=transfer: calls collective
	// calls, one per transfer, of which collCalls were collective (plan
	// is then the last one's).
	perCall          bool
	calls, collCalls int64
}

// String describes the decision for the Options block, the archive and
// the -v notes: "collective: 2 aggregators, 3 rounds of cb_buffer_size
// 16777216 (romio_cb_write=automatic: the accesses interleave)" or
// "independent (romio_cb_read=automatic: the accesses do not interleave)".
func (d collDecision) String() string {
	if d.perCall {
		s := fmt.Sprintf("one call per transfer: %d call%s, %d collective (%s)", d.calls, plural(int(d.calls)), d.collCalls, d.why)
		if d.plan != nil {
			s += fmt.Sprintf(", %d aggregator%s", len(d.plan.Aggs), plural(len(d.plan.Aggs)))
		}
		return s
	}
	if !d.collective {
		return "independent (" + d.why + ")"
	}
	return fmt.Sprintf("collective: %d aggregator%s, %d round%s of cb_buffer_size %d (%s)",
		len(d.plan.Aggs), plural(len(d.plan.Aggs)), d.plan.Rounds, plural(d.plan.Rounds), d.plan.BufferSize, d.why)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// collectiveOn reports whether the test's phases go through the
// collective path (-c, not --dryRun).
func (t *tester) collectiveOn() bool { return t.o.Collective && !t.o.DryRun }

// collGroup returns the communicator of the ranks sharing the file and
// this rank's hosts list for choosing aggregators: the job, or this rank
// alone with -F.
func (t *tester) collGroup() (*collectives.Comm, []string, int, error) {
	if !t.o.FilePerProc {
		return t.dc, t.env.RankHosts, t.numTasks, nil
	}
	if t.self == nil {
		c, err := collectives.Self(collectives.Options{})
		if err != nil {
			return nil, nil, 0, fmt.Errorf("collective I/O: %w", err)
		}
		t.self = c
	}
	active := 0
	if t.active {
		active = 1
	}
	return t.self, nil, active, nil
}

// collMode returns the hint that governs acc.
func (t *tester) collMode(acc access) (twophase.Mode, string) {
	if acc == accWrite {
		return t.o.Hints.Write, twophase.KeyWrite
	}
	return t.o.Hints.Read, twophase.KeyRead
}

// decide makes the decision of a phase of acc from every member's share,
// as every rank of the group does with the same members, so all agree.
func (t *tester) decide(acc access, members []collMember, hosts []string, active int) (collDecision, error) {
	reqs, err := t.requests(members)
	if err != nil {
		return collDecision{}, err
	}
	ext := make([]twophase.Extent, len(members))
	for r, q := range reqs {
		ext[r] = q.Extent()
	}
	mode, key := t.collMode(acc)
	d := collDecision{why: key + "=" + mode.String(), reqs: reqs}
	switch mode {
	case twophase.Disable:
		return d, nil
	case twophase.Automatic:
		if !twophase.Interleaved(ext) {
			d.why += ": the accesses do not interleave"
			return d, nil
		}
		d.why += ": the accesses interleave"
	}
	aggs := twophase.Aggregators(hosts, active, t.o.Hints.Nodes, t.o.Hints.PerHost)
	if len(aggs) == 0 {
		d.why += ": no rank takes part"
		return d, nil
	}
	p, err := twophase.NewPlan(reqs, aggs, t.o.Hints.BufferSize, t.domainAlign())
	if err != nil {
		return collDecision{}, err
	}
	d.collective, d.plan = true, p
	return d, nil
}

// requests returns every member's access, from the layout: the transfers
// of the rank whose data it moves, as many as it makes.
func (t *tester) requests(members []collMember) ([]twophase.Request, error) {
	g := t.geometry()
	reqs := make([]twophase.Request, len(members))
	plans := map[int]*layout.Plan{}
	for r, m := range members {
		if m.count <= 0 {
			continue
		}
		lp := plans[m.pretend]
		if lp == nil {
			p, err := g.Plan(m.pretend)
			if err != nil {
				return nil, fmt.Errorf("offsets of rank %d: %w", m.pretend, err)
			}
			lp = &p
			plans[m.pretend] = lp
		}
		reqs[r] = twophase.Request{N: m.count, Size: t.o.TransferSize, At: func(i int64) int64 { return lp.At(int(i)) }}
	}
	return reqs, nil
}

// plannedDecision is the decision the phase of acc in repetition rep will
// make, worked out from the layout before the test (every rank's share is
// a function of the options), for the Options block.
func (t *tester) plannedDecision(acc access, rep int) (collDecision, error) {
	g := t.geometry()
	var hosts []string
	ranks, active := t.numTasks, t.numTasks
	if t.o.FilePerProc {
		ranks, active = 1, 1
	} else {
		hosts = t.env.RankHosts
	}
	members := make([]collMember, ranks)
	for r := range members {
		p, err := t.reorder().PretendRank(r, t.topology(), acc.layoutPhase(), rep)
		if err != nil {
			return collDecision{}, err
		}
		lp, err := g.Plan(p)
		if err != nil {
			return collDecision{}, err
		}
		members[r] = collMember{pretend: p, count: int64(lp.Len())}
	}
	return t.decide(acc, members, hosts, active)
}

// gather shares every member's pretend rank and transfer count over the
// group (an idle rank, pl nil, has none): ROMIO's allgather of the
// extents, from which every rank computes everyone's.
func gather(ctx context.Context, c *collectives.Comm, pl *plan) ([]collMember, error) {
	var send [16]byte
	if pl != nil {
		binary.LittleEndian.PutUint64(send[0:], uint64(pl.pretend))
		binary.LittleEndian.PutUint64(send[8:], uint64(pl.count))
	}
	recv := make([]byte, 16*c.Size())
	if err := c.Allgather(ctx, send[:], recv); err != nil {
		return nil, fmt.Errorf("collective I/O: gather the extents: %w", err)
	}
	m := make([]collMember, c.Size())
	for r := range m {
		b := recv[16*r:]
		p, n := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		if p > math.MaxInt32 || n > math.MaxInt64/2 {
			return nil, fmt.Errorf("collective I/O: rank %d sent pretend rank %d and %d transfers", r, p, n)
		}
		m[r] = collMember{pretend: int(p), count: int64(n)}
	}
	return m, nil
}

// prepareColl allocates, before any timing, the two collective buffers
// of a rank that will aggregate (ROMIO allocates cb_buffer_size on the
// aggregators when the file opens), with their pages faulted in.
func (t *tester) prepareColl() {
	t.collSend = map[int][]byte{}
	if !t.collectiveOn() || !t.active {
		return
	}
	aggs := []int{0} // -F: every rank aggregates its own file
	if !t.o.FilePerProc {
		aggs = twophase.Aggregators(t.env.RankHosts, t.numTasks, t.o.Hints.Nodes, t.o.Hints.PerHost)
	} else {
		aggs[0] = t.rank
	}
	if slices.Contains(aggs, t.rank) {
		t.collBuffers(t.o.Hints.BufferSize)
	}
}

// collBuffers returns the aggregator's two buffers of size bytes,
// allocating them on first use.
func (t *tester) collBuffers(size int64) [2][]byte {
	for i, b := range t.collBufs {
		if int64(len(b)) < size {
			t.collBufs[i] = aiori.AlignedBuffer(int(size))
			pattern.Poison(t.collBufs[i])
		}
	}
	return t.collBufs
}

// domainAlign is the alignment of the file domains: striping_unit, or,
// for a backend whose transfers must be aligned (--posix.odirect), the
// alignment Direct I/O needs, so that no aggregator's call starts or ends
// inside a block.
func (t *tester) domainAlign() int64 {
	if su := t.o.Hints.StripingUnit; su > 0 {
		return su
	}
	if config.AlignedTransfers(t.o.BackendOptions) {
		return aiori.Align
	}
	return 0
}
