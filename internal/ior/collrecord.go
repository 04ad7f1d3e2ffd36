package ior

import (
	"fmt"
	"strconv"

	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
	"github.com/hpcbench/hpcbench/report"
)

// CollectiveTable names the archive's table of how each phase of a -c
// test was done: collectively (aggregators, rounds) or independently, and
// why.
const CollectiveTable = "ior collective"

// collRecord is how one phase of a -c test was done.
type collRecord struct {
	access string
	iter   int
	d      collDecision
}

// recordColl keeps, on rank 0, how the phase of acc in repetition rep was
// done, and says it: at -v, or always when -c fell back to independent
// I/O, and when it differs from what the Options block announced.
func (t *tester) recordColl(acc access, rep int, d collDecision) {
	if t.rank != 0 {
		return
	}
	t.coll = append(t.coll, collRecord{access: acc.String(), iter: rep, d: d})
	planned, announced := t.collPlanned[acc]
	switch {
	case announced && !d.perCall && planned != d.String():
		t.env.Warn(fmt.Sprintf("NOTE: collective I/O: %s, iteration %d: %s, not %s as planned", acc, rep, d, planned))
	case t.o.Verbose > 0 || (!d.collective && rep == 0):
		t.env.Warn(fmt.Sprintf("NOTE: collective I/O: %s, iteration %d: %s", acc, rep, d))
	}
}

// planColl works out, on rank 0, what each phase of the first repetition
// will do, for the Options block.
func (t *tester) planColl() error {
	if t.rank != 0 || !t.collectiveOn() {
		return nil // --dryRun: no phase does anything
	}
	t.collPlanned = map[access]string{}
	for _, acc := range []access{accWrite, accWriteCheck, accRead} {
		if (acc == accWrite && !t.o.WriteFile) || (acc == accWriteCheck && !t.o.CheckWrite) || (acc == accRead && !t.o.ReadFile) {
			continue
		}
		if t.o.CollectiveCall == config.CallTransfer {
			mode, key := t.collMode(acc)
			t.collPlanned[acc] = fmt.Sprintf("one call per transfer, each deciding (%s=%s)", key, mode)
			continue
		}
		d, err := t.plannedDecision(acc, 0)
		if err != nil {
			return fmt.Errorf("-c: %w", err)
		}
		t.collPlanned[acc] = d.String()
	}
	return nil
}

// collOptions are the Options block's rows of a -c test: the hints in
// effect, the ones not used, and what each phase does.
func (t *tester) collOptions(o *config.Options) []report.Row {
	if !o.Collective {
		return nil
	}
	rows := []report.Row{report.IORStringSetting("collectiveCall", o.CollectiveCall)}
	for _, k := range twophase.Keys() {
		v := o.Hints.Value(k)
		if k == twophase.KeyNodes && o.Hints.Nodes == 0 {
			v = "0 (one per host)"
		}
		rows = append(rows, report.IORStringSetting(k, v))
	}
	for _, ig := range o.Hints.Ignored {
		rows = append(rows, report.IORStringSetting("hint not used", ig))
	}
	for _, acc := range []access{accWrite, accWriteCheck, accRead} {
		if s, ok := t.collPlanned[acc]; ok {
			rows = append(rows, report.IORStringSetting("collective "+acc.String(), s))
		}
	}
	return rows
}

// collTable is the archive's CollectiveTable over the tests run so far,
// or false when none used -c.
func collTable(tests []collTest) (report.Table, bool) {
	tb := report.Table{Name: CollectiveTable, Columns: []report.Column{
		{Name: "test", Kind: report.KindLabel}, {Name: "access", Kind: report.KindLabel}, {Name: "iter", Kind: report.KindLabel},
		{Name: "mode", Kind: report.KindLabel}, {Name: "why", Kind: report.KindLabel},
		{Name: "aggregators", Kind: report.KindMetric}, {Name: "rounds", Kind: report.KindMetric},
		{Name: "cb_buffer_size", Kind: report.KindMetric, Unit: "B"},
		{Name: "calls", Kind: report.KindMetric}, {Name: "collective_calls", Kind: report.KindMetric},
	}}
	for _, ct := range tests {
		for _, r := range ct.records {
			mode, aggs, rounds, buf := "independent", 0.0, 0.0, float64(ct.bufSize)
			if r.d.collective {
				mode, aggs, rounds = "collective", float64(len(r.d.plan.Aggs)), float64(r.d.plan.Rounds)
			}
			// A phase is one call unless -O collectiveCall=transfer.
			calls, coll := 1.0, 0.0
			if r.d.collective {
				coll = 1
			}
			if r.d.perCall {
				calls, coll = float64(r.d.calls), float64(r.d.collCalls)
			}
			tb.Rows = append(tb.Rows, report.Row{
				Labels:  []string{strconv.Itoa(ct.id), r.access, strconv.Itoa(r.iter), mode, r.d.why},
				Metrics: []float64{aggs, rounds, buf, calls, coll},
			})
		}
	}
	return tb, len(tb.Rows) > 0
}

// collTest is one -c test's records.
type collTest struct {
	id      int
	bufSize int64
	records []collRecord
}
