package ior

import (
	"context"
	"fmt"
	"math"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
)

// collectiveCalls is -c as IOR calls MPI-IO: one collective call per
// transfer (IOR's MPI_File_write_at_all and MPI_File_read_at_all), each
// deciding alone, as ROMIO does for each call: under romio_cb_write=
// automatic, transfers that do not interleave (IOR's layouts never do
// within one call) are moved independently; with enable, each call is a
// two-phase call of one round. ROMIO gathers the ranks' extents in every
// call (two allgathers); here the phase's one gather (members) tells
// every rank each call's extents, from the layout, so a call that falls
// back costs no message. Every rank of the group calls it (an idle one
// with pl nil) and makes as many calls as the busiest member has
// transfers.
func (t *tester) collectiveCalls(ctx context.Context, c *collectives.Comm, hosts []string, active int,
	file aiori.File, acc access, pl *plan, members []collMember) (n, bad int64, d collDecision, err error) {
	var calls int64
	for _, m := range members {
		calls = max(calls, m.count)
	}
	mode, key := t.collMode(acc)
	d = collDecision{perCall: true, calls: calls, why: key + "=" + mode.String()}
	aggs := twophase.Aggregators(hosts, active, t.o.Hints.Nodes, t.o.Hints.PerHost)
	all, err := t.requests(members)
	if err != nil {
		return 0, 0, d, fmt.Errorf("collective I/O: %w", err)
	}
	size := c.Size()
	ext := make([]twophase.Extent, size)
	offs := make([]int64, size)
	reqs := make([]twophase.Request, size)
	me := c.Rank()
	for i := range calls {
		for r, q := range all {
			offs[r], ext[r] = -1, twophase.Extent{}
			if i < q.N {
				offs[r] = q.At(i)
				ext[r] = twophase.Extent{Start: offs[r], End: offs[r] + t.o.TransferSize}
			}
		}
		if mode == twophase.Disable || (mode == twophase.Automatic && !twophase.Interleaved(ext)) || len(aggs) == 0 {
			if offs[me] >= 0 {
				k, b, err := t.transfers(file, acc, pl, i, i+1, math.Inf(1), false)
				n, bad = n+k, bad+b
				if err != nil {
					return n, bad, d, err
				}
			}
			continue
		}
		d.collCalls++
		for r := range reqs {
			reqs[r] = twophase.Request{}
			if offs[r] >= 0 {
				o := offs[r]
				reqs[r] = twophase.Request{N: 1, Size: t.o.TransferSize, At: func(int64) int64 { return o }}
			}
		}
		plan, err := twophase.NewPlan(reqs, aggs, t.o.Hints.BufferSize, t.domainAlign())
		if err != nil {
			return n, bad, d, fmt.Errorf("collective I/O: call %d: %w", i, err)
		}
		d.plan = plan
		k, b, err := t.collPassOf(c, file, acc, pl, collDecision{collective: true, plan: plan, reqs: reqs}).rounds(ctx)
		n, bad = n+k, bad+b
		if err != nil {
			return n, bad, d, err
		}
	}
	d.collective = d.collCalls > 0
	switch {
	case mode == twophase.Disable:
	case d.collCalls == 0:
		d.why += ": the accesses of no call interleave"
	case d.collCalls < calls && mode == twophase.Automatic:
		d.why += ": the accesses of some calls interleave"
	case mode == twophase.Automatic:
		d.why += ": the accesses of every call interleave"
	}
	return n, bad, d, nil
}
