package report

import (
	"fmt"
	"strconv"
)

// mdtestRun is a Result read by the mdtest conventions (see
// MdtestHeaderTable): what the mdtest writers render. Decoding it checks
// everything the writers rely on, so rendering cannot fail half-way.
type mdtestRun struct {
	run    *Run
	header mdtestHeader
	rate   []mdtestSummaryRow // the MdtestRateTable, ops/s
	time   []mdtestSummaryRow // the MdtestTimeTable, seconds
	ranks  []mdtestRankRow
	errors []mdtestErrorRow
}

// mdtestHeader is the decoded MdtestHeaderTable.
type mdtestHeader struct {
	nodemap                                    string // empty when absent
	path                                       string
	hasFS                                      bool
	capacity, usedCapacity, inodes, usedInodes string
	tasks, items, itemsPerRank, iterations     int64
	itemKind                                   string
	rateAndTime, timeOnly, rankStats, allProcs bool
	warnings                                   []string
}

// mdtestSummaryRow is one row of the rate or time table, metrics in
// MdtestRateColumns order: max min mean stddev rankMax rankMin rankMean.
type mdtestSummaryRow struct {
	op string
	m  [7]float64
}

// mdtestRankRow is one row of the ranks table; rank is -1 for
// MdtestAllRanks.
type mdtestRankRow struct {
	iter, rank        int64
	op                string
	rate, time, items float64
}

// mdtestErrorRow is one row of the errors table.
type mdtestErrorRow struct {
	phase, op, path, err string
	count                float64
}

// mdtestNeeds says which tables a writer renders. The errors table is
// always read when present.
type mdtestNeeds struct {
	header, summary, ranks bool
}

// decodeMdtest validates r, then reads it by the mdtest conventions,
// failing with an error that names the missing or malformed table, row or
// column.
func decodeMdtest(r *Result, need mdtestNeeds) (*mdtestRun, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	tables := map[string]*Table{}
	for i := range r.Tables {
		tables[r.Tables[i].Name] = &r.Tables[i]
	}
	get := func(name string) (*Table, error) {
		if t := tables[name]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("report: mdtest result has no table %q", name)
	}
	wrap := func(t *Table, err error) error {
		return fmt.Errorf("report: mdtest table %q: %w", t.Name, err)
	}
	out := &mdtestRun{run: &r.Run}
	if need.header {
		t, err := get(MdtestHeaderTable)
		if err != nil {
			return nil, err
		}
		if err := out.header.decode(t); err != nil {
			return nil, wrap(t, err)
		}
	}
	if need.summary {
		rt, err := get(MdtestRateTable)
		if err != nil {
			return nil, err
		}
		if out.rate, err = decodeMdtestSummary(rt, "ops/s"); err != nil {
			return nil, wrap(rt, err)
		}
		tt, err := get(MdtestTimeTable)
		if err != nil {
			return nil, err
		}
		if out.time, err = decodeMdtestSummary(tt, "s"); err != nil {
			return nil, wrap(tt, err)
		}
		if len(out.time) != len(out.rate) {
			return nil, wrap(tt, fmt.Errorf("%d operations, table %q has %d; want the same", len(out.time), rt.Name, len(out.rate)))
		}
		for i := range out.time {
			if out.time[i].op != out.rate[i].op {
				return nil, wrap(tt, fmt.Errorf("row %d: operation %q, table %q has %q; want the same operations", i, out.time[i].op, rt.Name, out.rate[i].op))
			}
		}
	}
	if need.ranks {
		t, err := get(MdtestRanksTable)
		if err != nil {
			return nil, err
		}
		if out.ranks, err = decodeMdtestRanks(t); err != nil {
			return nil, wrap(t, err)
		}
	}
	if t := tables[MdtestErrorsTable]; t != nil {
		var err error
		if out.errors, err = decodeMdtestErrors(t); err != nil {
			return nil, wrap(t, err)
		}
	}
	return out, nil
}

// decode reads the header table into h.
func (h *mdtestHeader) decode(t *Table) error {
	c := newIORCols(t)
	ni, err := c.label("name")
	if err != nil {
		return err
	}
	vi, err := c.label("value")
	if err != nil {
		return err
	}
	vals := map[string]string{}
	for r, row := range t.Rows {
		name, v := row.Labels[ni], row.Labels[vi]
		if name == MdtestWarning {
			h.warnings = append(h.warnings, v)
			continue
		}
		if _, dup := vals[name]; dup {
			return fmt.Errorf("row %d: a second row %q", r, name)
		}
		vals[name] = v
	}
	for _, name := range []string{MdtestPath, MdtestTasks, MdtestItems, MdtestItemsPerRank, MdtestItemKind, MdtestIterations} {
		if _, ok := vals[name]; !ok {
			return fmt.Errorf("no row %q", name)
		}
	}
	h.nodemap = vals[MdtestNodemap]
	h.path = vals[MdtestPath]
	for _, n := range []struct {
		name string
		dst  *int64
	}{{MdtestTasks, &h.tasks}, {MdtestItems, &h.items}, {MdtestItemsPerRank, &h.itemsPerRank}, {MdtestIterations, &h.iterations}} {
		v, err := strconv.ParseInt(vals[n.name], 10, 64)
		if err != nil || v < 0 {
			return fmt.Errorf("row %q: %q is not a non-negative integer", n.name, vals[n.name])
		}
		*n.dst = v
	}
	switch h.itemKind = vals[MdtestItemKind]; h.itemKind {
	case MdtestFiles, MdtestDirectories, MdtestFilesDirectories:
	default:
		return fmt.Errorf("row %q: %q, want %q, %q or %q", MdtestItemKind, h.itemKind,
			MdtestFiles, MdtestDirectories, MdtestFilesDirectories)
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{MdtestPrintRateAndTime, &h.rateAndTime}, {MdtestPrintTime, &h.timeOnly}, {MdtestShowRankStatistics, &h.rankStats},
		{MdtestPrintAllProcs, &h.allProcs}} {
		v, ok := vals[f.name]
		if !ok {
			continue
		}
		switch v {
		case "0":
		case "1":
			*f.dst = true
		default:
			return fmt.Errorf("row %q: %q, want 0 or 1", f.name, v)
		}
	}
	fs := []string{MdtestCapacity, MdtestUsedCapacity, MdtestInodes, MdtestUsedInodes}
	n := 0
	for _, name := range fs {
		if _, ok := vals[name]; ok {
			n++
		}
	}
	if n > 0 && n < len(fs) {
		return fmt.Errorf("FS rows %q: %d of 4 present, want all or none", fs, n)
	}
	h.hasFS = n == len(fs)
	h.capacity, h.usedCapacity = vals[MdtestCapacity], vals[MdtestUsedCapacity]
	h.inodes, h.usedInodes = vals[MdtestInodes], vals[MdtestUsedInodes]
	return nil
}

// mdtestOperation checks that op is one of mdtest's phases.
func mdtestOperation(row int, op string) error {
	if mdtestOpIndex(op) < 0 {
		return fmt.Errorf("row %d: operation %q is none of mdtest's (%q)", row, op, MdtestOperations())
	}
	return nil
}

// decodeMdtestSummary reads a rate (unit ops/s) or time (unit s) table.
// Operations must be mdtest's, each once, in mdtest's order.
func decodeMdtestSummary(t *Table, unit string) ([]mdtestSummaryRow, error) {
	c := newIORCols(t)
	oi, err := c.label("operation")
	if err != nil {
		return nil, err
	}
	names := []string{"max", "min", "mean", "stddev", "rankMax", "rankMin", "rankMean"}
	units := make([]string, len(names))
	for i := range units {
		units[i] = unit
	}
	ms, err := c.metricsIn(names, units)
	if err != nil {
		return nil, err
	}
	out := make([]mdtestSummaryRow, 0, len(t.Rows))
	last := -1
	for r := range t.Rows {
		row := &t.Rows[r]
		op := row.Labels[oi]
		if err := mdtestOperation(r, op); err != nil {
			return nil, err
		}
		idx := mdtestOpIndex(op)
		if idx <= last {
			return nil, fmt.Errorf("row %d: operation %q after %q; want each once, in mdtest's order", r, op, out[len(out)-1].op)
		}
		last = idx
		s := mdtestSummaryRow{op: op}
		for i, m := range ms {
			s.m[i] = m.value(row)
		}
		out = append(out, s)
	}
	return out, nil
}

// decodeMdtestRanks reads the ranks table.
func decodeMdtestRanks(t *Table) ([]mdtestRankRow, error) {
	c := newIORCols(t)
	var idx [3]int
	for i, name := range []string{"iteration", "rank", "operation"} {
		var err error
		if idx[i], err = c.label(name); err != nil {
			return nil, err
		}
	}
	ms, err := c.metricsIn([]string{"rate", "time", "items"}, []string{"ops/s", "s", ""})
	if err != nil {
		return nil, err
	}
	out := make([]mdtestRankRow, 0, len(t.Rows))
	for r := range t.Rows {
		row := &t.Rows[r]
		iter, err := iorInt(r, "iteration", row.Labels[idx[0]])
		if err != nil {
			return nil, err
		}
		if iter < 0 {
			return nil, fmt.Errorf("row %d: column %q: %d is negative", r, "iteration", iter)
		}
		rank := int64(-1)
		if v := row.Labels[idx[1]]; v != MdtestAllRanks {
			if rank, err = iorInt(r, "rank", v); err != nil || rank < 0 {
				return nil, fmt.Errorf("row %d: column %q: %q is neither a rank nor %q", r, "rank", v, MdtestAllRanks)
			}
		}
		op := row.Labels[idx[2]]
		if err := mdtestOperation(r, op); err != nil {
			return nil, err
		}
		out = append(out, mdtestRankRow{iter: iter, rank: rank, op: op,
			rate: ms[0].value(row), time: ms[1].value(row), items: ms[2].value(row)})
	}
	return out, nil
}

// decodeMdtestErrors reads the errors table.
func decodeMdtestErrors(t *Table) ([]mdtestErrorRow, error) {
	c := newIORCols(t)
	var idx [4]int
	for i, name := range []string{"phase", "op", "path", "error"} {
		var err error
		if idx[i], err = c.label(name); err != nil {
			return nil, err
		}
	}
	ms, err := c.metricsIn([]string{"count"}, []string{""})
	if err != nil {
		return nil, err
	}
	out := make([]mdtestErrorRow, 0, len(t.Rows))
	for r := range t.Rows {
		row := &t.Rows[r]
		e := mdtestErrorRow{phase: row.Labels[idx[0]], op: row.Labels[idx[1]], path: row.Labels[idx[2]],
			err: row.Labels[idx[3]], count: ms[0].value(row)}
		if e.phase == "" {
			return nil, fmt.Errorf("row %d: no phase", r)
		}
		out = append(out, e)
	}
	return out, nil
}
