package report

import (
	"fmt"
	"strconv"
	"time"
)

// iorRun is a Result read by the IOR conventions (see IORTableName): what
// the IOR writers render. Decoding it checks everything the writers rely
// on, so rendering cannot fail half-way.
type iorRun struct {
	run     *Run
	tests   []iorTest
	summary []iorSummaryRow
}

// iorTest is one test: its header rows, options, parameters, results and
// per-rank figures, each present when the writer asked for it.
type iorTest struct {
	header  map[string]string
	testID  int64
	options []iorSetting
	params  []iorSetting
	verbose int64
	results []iorPhaseRow
	ranks   []iorRankRow
}

// iorSetting is one option or parameter.
type iorSetting struct {
	name, value string
	isInt       bool
}

// iorPhaseRow is one row of a results table, in the writers' units:
// MiB/s, ops/s, seconds, KiB for block and xfer.
type iorPhaseRow struct {
	access                   string
	iter                     int64
	bw, iops, latency        float64
	blockKiB, xferKiB        float64
	open, wrrd, close, total float64
	tasks, errors            float64
}

// iorRankRow is one row of a ranks table: seconds and bytes/s.
type iorRankRow struct {
	access, rank                     string
	runtimeOC, runtime, tputOC, tput float64
}

// iorSummaryRow is one row of the summary table; ints holds the labels
// from Test# to RefNum except API, in IORSummaryColumns order.
type iorSummaryRow struct {
	operation string
	ints      [13]int64 // Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt blksiz xsize RefNum
	api       string
	m         [12]float64 // Max(MiB) ... aggs(MiB), in IORSummaryColumns order
}

// The indexes of iorSummaryRow.ints.
const (
	iorSumTest = iota
	iorSumTasks
	iorSumTPN
	iorSumReps
	iorSumFPP
	iorSumReord
	iorSumReordOff
	iorSumReordRand
	iorSumSeed
	iorSumSegments
	iorSumBlock
	iorSumXfer
	iorSumRefNum
)

// iorNeeds says which tables a writer renders.
type iorNeeds struct {
	kinds   []string // per-test table kinds, each required for every test
	summary bool     // the IORSummaryTable
}

// decodeIOR validates r, then reads it by the IOR conventions, failing
// with an error that names the missing or malformed table or column.
func decodeIOR(r *Result, need iorNeeds) (*iorRun, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	tables := map[int]map[string]*Table{}
	ntests := 0
	var summary *Table
	for i := range r.Tables {
		t := &r.Tables[i]
		if t.Name == IORSummaryTable {
			summary = t
			continue
		}
		test, kind, ok := ParseIORTableName(t.Name)
		if !ok {
			continue
		}
		if tables[test] == nil {
			tables[test] = map[string]*Table{}
		}
		tables[test][kind] = t
		ntests = max(ntests, test+1)
	}
	out := &iorRun{run: &r.Run}
	if ntests == 0 {
		ntests = 1 // so that the error below names test 0's table
	}
	for k := 0; k < ntests; k++ {
		var test iorTest
		for _, kind := range need.kinds {
			t := tables[k][kind]
			if t == nil {
				return nil, fmt.Errorf("report: IOR result has no table %q", IORTableName(k, kind))
			}
			if err := test.decode(t, kind); err != nil {
				return nil, fmt.Errorf("report: IOR table %q: %w", t.Name, err)
			}
		}
		out.tests = append(out.tests, test)
	}
	if need.summary {
		if summary == nil {
			return nil, fmt.Errorf("report: IOR result has no table %q", IORSummaryTable)
		}
		rows, err := decodeIORSummary(summary)
		if err != nil {
			return nil, fmt.Errorf("report: IOR table %q: %w", summary.Name, err)
		}
		out.summary = rows
	}
	return out, nil
}

// decode reads one table of kind into test.
func (test *iorTest) decode(t *Table, kind string) error {
	switch kind {
	case IORHeader:
		return test.decodeHeader(t)
	case IOROptions:
		s, err := decodeIORSettings(t)
		test.options = s
		return err
	case IORParameters:
		s, err := decodeIORSettings(t)
		if err != nil {
			return err
		}
		test.params = s
		for _, p := range s {
			if p.name == IORParamVerbose && p.isInt {
				test.verbose, _ = strconv.ParseInt(p.value, 10, 64) // checked by decodeIORSettings
			}
		}
		return nil
	case IORResults:
		return test.decodeResults(t)
	case IORRanks:
		return test.decodeRanks(t)
	}
	return fmt.Errorf("unknown kind %q", kind)
}

// iorCols finds columns of one table by name, checking their kind and
// unit.
type iorCols struct {
	labels, metrics []Column
}

func newIORCols(t *Table) iorCols {
	labels, metrics := t.split()
	return iorCols{labels, metrics}
}

// label returns the index of label column name among the label columns.
func (c iorCols) label(name string) (int, error) {
	for i, col := range c.labels {
		if col.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no label column %q", name)
}

// metric returns the index of metric column name among the metric columns
// and the factor converting its Unit to unit; an empty unit wants a plain
// count (a column with no unit).
func (c iorCols) metric(name, unit string) (int, float64, error) {
	for i, col := range c.metrics {
		if col.Name != name {
			continue
		}
		if unit == "" {
			if col.Unit != "" {
				return 0, 0, fmt.Errorf("column %q: unit %q, want none (a count)", name, col.Unit)
			}
			return i, 1, nil
		}
		scale, ok := displayScale(col.Unit, unit)
		if !ok {
			return 0, 0, fmt.Errorf("column %q: unit %q does not convert to %s", name, col.Unit, unit)
		}
		return i, scale, nil
	}
	return 0, 0, fmt.Errorf("no metric column %q", name)
}

// iorMetric is a resolved metric column: its index and scale.
type iorMetric struct {
	index int
	scale float64
}

// metrics resolves several metric columns, each wanted in its unit.
func (c iorCols) metricsIn(names, units []string) ([]iorMetric, error) {
	out := make([]iorMetric, len(names))
	for i, name := range names {
		idx, scale, err := c.metric(name, units[i])
		if err != nil {
			return nil, err
		}
		out[i] = iorMetric{idx, scale}
	}
	return out, nil
}

// value returns row's figure for m in the wanted unit.
func (m iorMetric) value(row *Row) float64 {
	return row.Metrics[m.index] * m.scale
}

// iorInt parses an integer label, naming the row and column on failure.
func iorInt(row int, col, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("row %d: column %q: %q is not an integer", row, col, v)
	}
	return n, nil
}

func (test *iorTest) decodeHeader(t *Table) error {
	c := newIORCols(t)
	ni, err := c.label("name")
	if err != nil {
		return err
	}
	vi, err := c.label("value")
	if err != nil {
		return err
	}
	test.header = make(map[string]string, len(t.Rows))
	for _, row := range t.Rows {
		test.header[row.Labels[ni]] = row.Labels[vi]
	}
	for _, name := range []string{IORTestID, IORStartTime, IORPath} {
		if _, ok := test.header[name]; !ok {
			return fmt.Errorf("no row %q", name)
		}
	}
	id, err := strconv.ParseInt(test.header[IORTestID], 10, 64)
	if err != nil {
		return fmt.Errorf("row %q: %q is not an integer", IORTestID, test.header[IORTestID])
	}
	test.testID = id
	return nil
}

// startTime returns the test's StartTime as IOR prints it: an RFC 3339
// value reformatted with IORTime, anything else as it is.
func (test *iorTest) startTime() string {
	v := test.header[IORStartTime]
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return IORTime(t)
	}
	return v
}

func decodeIORSettings(t *Table) ([]iorSetting, error) {
	c := newIORCols(t)
	var idx [3]int
	for i, name := range []string{"name", "type", "value"} {
		var err error
		if idx[i], err = c.label(name); err != nil {
			return nil, err
		}
	}
	out := make([]iorSetting, 0, len(t.Rows))
	for r, row := range t.Rows {
		s := iorSetting{name: row.Labels[idx[0]], value: row.Labels[idx[2]]}
		switch typ := row.Labels[idx[1]]; typ {
		case IORTypeInt:
			n, err := iorInt(r, s.name, s.value)
			if err != nil {
				return nil, err
			}
			s.value, s.isInt = strconv.FormatInt(n, 10), true
		case IORTypeString:
		default:
			return nil, fmt.Errorf("row %d (%q): type %q, want %q or %q", r, s.name, typ, IORTypeInt, IORTypeString)
		}
		out = append(out, s)
	}
	return out, nil
}

func (test *iorTest) decodeResults(t *Table) error {
	c := newIORCols(t)
	ai, err := c.label("access")
	if err != nil {
		return err
	}
	ii, err := c.label("iter")
	if err != nil {
		return err
	}
	ms, err := c.metricsIn(
		[]string{"bw", "iops", "latency", "block", "xfer", "open", "wrrd", "close", "total", "tasks", "errors"},
		[]string{"MiB/s", "ops/s", "s", "KiB", "KiB", "s", "s", "s", "s", "", ""})
	if err != nil {
		return err
	}
	for r := range t.Rows {
		row := &t.Rows[r]
		iter, err := iorInt(r, "iter", row.Labels[ii])
		if err != nil {
			return err
		}
		v := func(i int) float64 { return ms[i].value(row) }
		test.results = append(test.results, iorPhaseRow{
			access: row.Labels[ai], iter: iter,
			bw: v(0), iops: v(1), latency: v(2), blockKiB: v(3), xferKiB: v(4),
			open: v(5), wrrd: v(6), close: v(7), total: v(8), tasks: v(9), errors: v(10),
		})
	}
	return nil
}

func (test *iorTest) decodeRanks(t *Table) error {
	c := newIORCols(t)
	ai, err := c.label("access")
	if err != nil {
		return err
	}
	if _, err := c.label("iter"); err != nil {
		return err
	}
	ri, err := c.label("rank")
	if err != nil {
		return err
	}
	ms, err := c.metricsIn(
		[]string{"runtime-with-openclose", "runtime", "throughput-withopenclose", "throughput"},
		[]string{"s", "s", "B/s", "B/s"})
	if err != nil {
		return err
	}
	for r := range t.Rows {
		row := &t.Rows[r]
		if _, err := iorInt(r, "rank", row.Labels[ri]); err != nil {
			return err
		}
		test.ranks = append(test.ranks, iorRankRow{
			access: row.Labels[ai], rank: row.Labels[ri],
			runtimeOC: ms[0].value(row), runtime: ms[1].value(row), tputOC: ms[2].value(row), tput: ms[3].value(row),
		})
	}
	return nil
}

func decodeIORSummary(t *Table) ([]iorSummaryRow, error) {
	c := newIORCols(t)
	oi, err := c.label("operation")
	if err != nil {
		return nil, err
	}
	names := iorSummaryLabels()
	idx := make([]int, len(names))
	for i, name := range names {
		if idx[i], err = c.label(name); err != nil {
			return nil, err
		}
	}
	ms, err := c.metricsIn(
		[]string{"Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev(MiB)", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev(OPs)",
			"Mean(s)", "Stonewall(s)", "Stonewall(MiB)", "aggs(MiB)"},
		[]string{"MiB/s", "MiB/s", "MiB/s", "MiB/s", "ops/s", "ops/s", "ops/s", "ops/s", "s", "s", "MiB/s", "MiB"})
	if err != nil {
		return nil, err
	}
	out := make([]iorSummaryRow, 0, len(t.Rows))
	for r := range t.Rows {
		row := &t.Rows[r]
		s := iorSummaryRow{operation: row.Labels[oi]}
		n := 0
		for i, name := range names {
			v := row.Labels[idx[i]]
			if name == "API" {
				s.api = v
				continue
			}
			if s.ints[n], err = iorInt(r, name, v); err != nil {
				return nil, err
			}
			n++
		}
		for i, m := range ms {
			s.m[i] = m.value(row)
		}
		out = append(out, s)
	}
	return out, nil
}

// maxBW returns the largest bandwidth (MiB/s) of the test's rows for
// access, and false when no such row has one.
func (test *iorTest) maxBW(access string) (float64, bool) {
	var bw []float64
	for _, p := range test.results {
		if p.access == access {
			bw = append(bw, p.bw)
		}
	}
	s := Summarize(bw) // NaN bandwidths (not measured) are skipped
	return s.Max, s.N > 0
}
