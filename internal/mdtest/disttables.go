package mdtest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// The archive's distribution tables; mdtest's views ignore them.
const (
	latencyTable = "latency" // per-item latency percentiles per phase and iteration
	seriesTable  = "series"  // items per second per interval
	ranksTable   = "ranks"   // per-rank items, end and rate (more than one rank)
	hostsTable   = "hosts"   // per-host items, ends and rate (more than one rank)
)

// distLabels are the distribution tables' label columns, after mdtest's
// ranks table.
func distLabels() []report.Column {
	return []report.Column{{Name: "operation", Kind: report.KindLabel}, {Name: "iteration", Kind: report.KindLabel}}
}

// distTables builds, from every phase's reduced distributions, the
// latency and series tables and, with more than one rank, the per-rank
// and per-host ones. The items are those each rank did itself: with -c,
// rank 0 did every rank's creations and removals. The series table's
// notes say, for each creation phase run with --until-steady, whether it
// stopped early.
func (r *runner) distTables(res *runResult) []report.Table {
	var lat []report.Latency
	var series []report.TimeSeries
	var sets []report.RankSet
	var notes []string
	for _, p := range res.phases {
		if p.dist == nil {
			continue
		}
		labels := func() []string { return []string{p.name, strconv.Itoa(p.iter)} }
		name := fmt.Sprintf("%s, iteration %d", p.name, p.iter)
		lat = append(lat, p.dist.Latency(labels()))
		series = append(series, p.dist.TimeSeries(labels()))
		set := p.dist.RankSet(labels(), name, r.env.RankHosts)
		set.Unshown = !r.relevant(p.name)
		sets = append(sets, set)
		if isCreate(p.name) {
			if n := p.dist.SteadyNote(name); n != "" {
				notes = append(notes, n)
			}
		}
	}
	if len(lat) == 0 {
		return nil
	}
	rate := report.Column{Name: "rate", Unit: "ops/s"}
	st := report.SeriesTable(seriesTable, distLabels(), rate, 1, series)
	st.Notes = notes
	tables := []report.Table{report.LatencyTable(latencyTable, distLabels(), lat), st}
	if r.size > 1 {
		ranks, hosts := report.RankTables(ranksTable, hostsTable, distLabels(),
			report.RankUnits{Amount: report.Column{Name: "items"}, Rate: rate, Scale: 1}, sets)
		tables = append(tables, ranks, hosts)
	}
	return tables
}

// envUntilSteady is the Run.Env fact of a run with --until-steady.
const envUntilSteady = "until-steady"

// steadyFact says which creation phases --until-steady ended early, and
// at how many items per rank of how many, for Run.Env.
func (r *runner) steadyFact(res *runResult) string {
	var early []string
	for _, p := range res.phases {
		if !isCreate(p.name) || p.stopped&stopSteady == 0 {
			continue
		}
		most := 0.0
		for _, k := range p.ranks {
			most = math.Max(most, k.items)
		}
		early = append(early, fmt.Sprintf("%s, iteration %d, at %.0f of %d items per rank", p.name, p.iter, most, r.layout.ItemsPerRank))
	}
	if len(early) == 0 {
		return "--until-steady=" + r.o.Steady.String() + ": every creation phase ran to its end"
	}
	return "--until-steady=" + r.o.Steady.String() + " stopped early: " + strings.Join(early, "; ")
}
