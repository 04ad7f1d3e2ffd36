package ior

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/report"
)

// The archive's distributions of the timed write and read phases: every
// transfer's latency, the bytes moved per --interval and each rank's
// bytes and end (internal/distribution), with --until-steady's test deciding on
// each rank when its phase has run long enough.

// The names of the distribution tables in the Result; the "ior " prefix
// keeps them apart from the per-test tables (report.IORTableName).
const (
	LatencyTable = "ior latency"
	SeriesTable  = "ior series"
	RanksTable   = "ior ranks"
	HostsTable   = "ior hosts"
)

// distLabels are the label columns of the distribution tables: the test
// (its -f script number), the access and the repetition, as the results
// table names them.
func distLabels() []report.Column {
	return []report.Column{{Name: "test", Kind: report.KindLabel}, {Name: "access", Kind: report.KindLabel},
		{Name: "iter", Kind: report.KindLabel}}
}

// rankUnits are the per-rank tables' units: bytes shown in MiB, MiB/s.
var rankUnits = report.RankUnits{
	Amount: report.Column{Name: "bytes", Unit: "B", Display: "MiB"},
	Rate:   report.Column{Name: "bw", Unit: "MiB/s"},
	Scale:  1 << 20,
}

// distComm returns the communicator distribution.Reduce runs on: c itself, or for
// a one-rank Comm of another type (the engine's unit tests), a one-rank
// collectives.Comm.
func distComm(c Comm) (*collectives.Comm, error) {
	if cc, ok := c.(*collectives.Comm); ok {
		return cc, nil
	}
	if c.Size() != 1 {
		return nil, fmt.Errorf("the distributions need a *collectives.Comm for %d ranks, not a %T", c.Size(), c)
	}
	return collectives.Self(collectives.Options{})
}

// startDist empties the recorder for a phase that starts now on this
// rank, at clock on Env.Clock.
func (t *tester) startDist(clock float64) {
	t.rec.Reset()
	t.clock0 = clock
	if t.env.Ticks != nil {
		t.tick0 = t.env.Ticks()
		return
	}
	t.t0 = time.Now()
}

// since returns the nanoseconds since the phase's start (startDist) on
// the monotonic clock, or on Env.Ticks when the tests give one. It is the
// one clock reading the timed loop takes per transfer.
func (t *tester) since() int64 {
	if t.env.Ticks != nil {
		return t.env.Ticks() - t.tick0
	}
	return int64(time.Since(t.t0))
}

// finishDist ends the phase's recording on this rank and reduces it over
// the job: rank 0 gets the job's figures, cut to the ranks that take part
// (-N), the others nil. Every rank calls it.
func (t *tester) finishDist(ctx context.Context) (*distribution.Job, error) {
	// phase has called Done at the transfers' end: a second Done here
	// would take in the close and the reduction's wait for the slowest
	// rank, and every rank would end with it.
	j, err := distribution.Reduce(ctx, t.dc, t.rec)
	if err != nil {
		return nil, err
	}
	if j != nil && len(j.Ranks) > t.numTasks {
		j.Ranks = j.Ranks[:t.numTasks]
	}
	return j, nil
}

// phaseName names a phase in the distribution tables' notes and the
// --until-steady line: "write, iteration 0, test 0".
func phaseName(test int, access string, iter int) string {
	return fmt.Sprintf("%s, iteration %d, test %d", access, iter, test)
}

// distTables holds, on rank 0, the rows of the distribution tables of
// every test so far.
type distTables struct {
	lat    []report.Latency
	series []report.TimeSeries
	sets   []report.RankSet
	notes  []string
}

// add adds one test's timed phases.
func (d *distTables) add(id int, res *testResult, hosts []string) {
	for _, f := range res.phases {
		if f.dist == nil {
			continue
		}
		labels := []string{strconv.Itoa(id), f.access, strconv.Itoa(f.iter)}
		name := phaseName(id, f.access, f.iter)
		d.lat = append(d.lat, f.dist.Latency(labels))
		d.series = append(d.series, f.dist.TimeSeries(labels))
		if n := f.dist.SteadyNote(name); n != "" {
			d.notes = append(d.notes, n)
		}
		if len(f.dist.Ranks) > 1 {
			d.sets = append(d.sets, f.dist.RankSet(labels, name, hosts))
		}
	}
}

// tables returns the distribution tables, none when no phase was timed;
// the per-rank and per-host tables only when a phase had several ranks.
func (d *distTables) tables() []report.Table {
	if len(d.lat) == 0 {
		return nil
	}
	series := report.SeriesTable(SeriesTable, distLabels(), report.Column{Name: "bw", Unit: "MiB/s"}, 1<<20, d.series)
	series.Notes = d.notes
	out := []report.Table{report.LatencyTable(LatencyTable, distLabels(), d.lat), series}
	if len(d.sets) > 0 {
		ranks, hosts := report.RankTables(RanksTable, HostsTable, distLabels(), rankUnits, d.sets)
		out = append(out, ranks, hosts)
	}
	return out
}

// distParams echoes --interval and --until-steady into the Params when
// they were given (a run without them keeps its Params).
func distParams(o *config.Options) []report.Param {
	var ps []report.Param
	if o.IntervalSet {
		// Incidental unless --until-steady's window is counted in it.
		ps = append(ps, report.Param{Name: "interval", Value: o.Interval.String(), Incidental: !o.UntilSteady.On()})
	}
	if o.UntilSteady.On() {
		ps = append(ps, report.Param{Name: "until-steady", Value: o.UntilSteady.String()})
	}
	return ps
}
