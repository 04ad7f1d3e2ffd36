package imb

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/report"
)

// distState is the engine's recording of the distributions: this rank's
// Recorder, reset for every size, and on rank 0 the reduced figures of
// every size so far.
//
// The distribution tables Run adds to its result after IMB's, for every
// benchmark, process count and message size (the measured run of the
// size; not the warm-up, not the timing probes):
//
//   - "latency": p50, p90, p99 and max of a repetition's time over every
//     active rank, scaled as IMB scales t (halved for PingPong, whose
//     repetition is a round trip), and ops, the repetitions timed (each
//     rank's, summed). Collectives, and every benchmark with -check, are
//     timed one repetition at a time as IMB does, and every repetition
//     counts. The loops IMB times as a whole (PingPong, PingPing,
//     Sendrecv, Exchange, Barrier) time the repetitions distribution's sampling
//     picks (Recorder.Due: the first 64 of a size, then one in k, k = 10
//     µs over their mean time, at most 64), each alone, so that the clock
//     readings do not slow what t measures; t_min, t_max and t_avg still
//     come from the loop's span.
//   - "series": rate, the benchmark's repetitions per second over each
//     --interval of the measured run (each active rank's repetitions in
//     the interval, averaged over the ranks: the job's repetitions per
//     second). Multiply by #bytes for the bytes a rank's message moves.
//   - "ranks" and "hosts", with more than one process: every active
//     rank's repetitions, its time from the run's start (after IMB's
//     barriers) to its last repetition's end, and its repetitions per
//     second; per host the same summed, and a note naming a straggler.
//
// Their label columns are "benchmark", IMB's table name ("Allreduce np=4"),
// and "#bytes" (0 for Barrier). They need the job's communicator to be a
// *collectives.Comm, as it is under hpcbench coll; over another Comm the
// result has IMB's tables only. The tables are named distLatency,
// distSeries, distRanks and distHosts; report.WriteIMB leaves them out
// (Table.Dist).
type distState struct {
	comm  *collectives.Comm // the world, for distribution.Reduce; nil: off
	rec   *distribution.Recorder
	hosts []string
	// inGroup: the active ranks reduce over their group alone, which
	// Options.Group makes as a *collectives.Comm (under hpcbench coll),
	// and the ranks that wait take no part. The idle ranks' empty phases
	// add nothing, and the 4 collectives of every size then cost what the
	// group's size makes them cost, not the job's: on 256 ranks of a
	// 2-CPU host they took 21 s of a 100 s run at np = 2 to 128.
	inGroup bool

	lat  []report.Latency
	ser  []report.TimeSeries
	sets []report.RankSet
}

// The names of the distribution tables; IMB's are "BENCHMARK np=N".
const (
	distLatency = "latency"
	distSeries  = "series"
	distRanks   = "ranks"
	distHosts   = "hosts"
)

// newDistState returns the recording for a run over world, off when world
// is not a *collectives.Comm (and o.distComm is not set).
func newDistState(world Comm, o *Options) (*distState, error) {
	c, ok := world.(*collectives.Comm)
	if o.distComm != nil {
		c, ok = o.distComm, true
	}
	if !ok {
		return &distState{}, nil
	}
	rec, err := distribution.New(o.interval(), distribution.Steady{})
	if err != nil {
		return nil, err
	}
	return &distState{comm: c, rec: rec, hosts: o.Env.RankHosts, inGroup: o.distComm == nil && o.Group != nil}, nil
}

// recorder returns the Recorder for the measured run of the next size,
// emptied; nil when recording is off.
func (d *distState) recorder() *distribution.Recorder {
	if d.comm == nil {
		return nil
	}
	d.rec.Reset()
	return d.rec
}

// reduce gathers one size's figures, every rank of the world calling it
// after the size's run with its group c (nil on a rank that waited). Over
// the group when d.inGroup, where a waiting rank has nothing to do; over
// the world otherwise, where ranks that did not take part (np below the
// job's size) contribute an empty phase. Rank 0 keeps the rows.
func (d *distState) reduce(ctx context.Context, b benchmark, c Comm, np, size int, active bool) error {
	if d.comm == nil {
		return nil
	}
	comm := d.comm
	switch {
	case d.inGroup && !active:
		return nil
	case d.inGroup && np < d.comm.Size():
		g, ok := c.(*collectives.Comm)
		if !ok {
			return fmt.Errorf("the distributions need the group of %d processes as a *collectives.Comm, not a %T", np, c)
		}
		comm = g
	case !active:
		d.rec.Reset()
		d.rec.Done(0)
	}
	j, err := distribution.Reduce(ctx, comm, d.rec)
	if err != nil || j == nil {
		return err
	}
	name := report.IMBTableName(b.name, np)
	labels := []string{name, strconv.Itoa(size)}
	l := j.Latency(labels)
	l.P50, l.P90, l.P99, l.Max = l.P50*b.scaleTime, l.P90*b.scaleTime, l.P99*b.scaleTime, l.Max*b.scaleTime
	d.lat = append(d.lat, l)
	s := j.TimeSeries(labels)
	s.Amount = append([]float64(nil), s.Amount...)
	for i := range s.Amount {
		s.Amount[i] /= float64(np)
	}
	d.ser = append(d.ser, s)
	if np > 1 {
		set := j.RankSet(labels, fmt.Sprintf("%s #bytes %d", name, size), d.hosts)
		set.Hosts, set.Amount, set.Done = set.Hosts[:np], set.Amount[:np], set.Done[:np]
		d.sets = append(d.sets, set)
	}
	return nil
}

// tables returns the distribution tables of rank 0's figures, none when
// nothing was recorded.
func (d *distState) tables() []report.Table {
	if len(d.lat) == 0 {
		return nil
	}
	labels := []report.Column{{Name: "benchmark", Kind: report.KindLabel}, {Name: colBytes, Kind: report.KindLabel}}
	rate := report.Column{Name: "rate", Unit: "ops/s"}
	out := []report.Table{
		report.LatencyTable(distLatency, labels, d.lat),
		report.SeriesTable(distSeries, labels, rate, 1, d.ser),
	}
	if len(d.sets) > 0 {
		ranks, hosts := report.RankTables(distRanks, distHosts, labels,
			report.RankUnits{Amount: report.Column{Name: "repetitions"}, Rate: rate, Scale: 1}, d.sets)
		out = append(out, ranks, hosts)
	}
	return out
}
