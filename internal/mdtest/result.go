package mdtest

import (
	"errors"
	"io/fs"
	"maps"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/report"
)

// failure is the first failed operation of a phase on one rank, as it
// travels to rank 0: the call, the path and the error's words.
type failure struct {
	op, path, err string
}

// encode packs f for the gather; decode unpacks it.
func (f failure) encode() string { return f.op + "\x1f" + f.path + "\x1f" + f.err }

func decodeFailure(s string) failure {
	parts := strings.SplitN(s, "\x1f", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return failure{op: parts[0], path: parts[1], err: parts[2]}
}

// describe turns an operation's error into a failure: the errno's words
// when there is one (what mdtest users grep for), else the whole error.
func describe(op, path string, err error) failure {
	f := failure{op: op, path: path, err: err.Error()}
	var errno syscall.Errno
	var pe *fs.PathError
	switch {
	case errors.As(err, &errno):
		f.err = errno.Error()
	case errors.As(err, &pe):
		f.err = pe.Err.Error()
	}
	return f
}

// perSecond returns items/secs, or NaN (not measured) when the phase was
// too short for the clock to see: a rate can be neither infinite nor
// guessed.
func perSecond(items, secs float64) float64 {
	if secs <= 0 {
		return math.NaN()
	}
	return items / secs
}

// isTree reports whether a phase is one of the tree phases, whose rate is
// rank 0's own.
func isTree(name string) bool {
	return name == report.MdtestTreeCreate || name == report.MdtestTreeRemove
}

// aggregate returns one phase's iteration figures: the aggregate rate
// (the slowest rank's rate times the ranks that had items, mdtest's) and
// the time (the slowest rank's, after the barrier).
func aggregate(p *phaseResult) (rate, secs float64, items int64) {
	if isTree(p.name) {
		r0 := p.ranks[0]
		return perSecond(r0.items, r0.after), r0.after, int64(r0.items)
	}
	slowest := math.Inf(1)
	n := 0
	for _, k := range p.ranks {
		secs = math.Max(secs, k.after)
		if k.items <= 0 {
			continue
		}
		items += int64(k.items)
		n++
		slowest = math.Min(slowest, perSecond(k.items, k.after))
	}
	if n == 0 {
		return 0, secs, 0
	}
	return slowest * float64(n), secs, items
}

// result builds rank 0's Result.
func (r *runner) result(res *runResult, finished time.Time) *report.Result {
	o := r.o
	out := report.New("mdtest")
	out.Run = r.env.Run
	out.Run.Benchmark = "mdtest"
	out.Run.Ranks = r.size
	if r.env.JobRanks > 0 {
		out.Run.Ranks = r.env.JobRanks
	}
	out.Run.Start, out.Run.End = r.began, finished
	out.Run.Env = maps.Clone(r.env.Run.Env)
	if out.Run.Env == nil {
		out.Run.Env = map[string]string{}
	}
	out.Run.Env[report.EnvMachine] = r.env.Machine
	if d, ok := r.be.(aiori.Describer); ok {
		maps.Copy(out.Run.Env, d.Describe()) // where the data went (DFS: pool, class, chunk)
	}
	out.Params = params(o)

	kind := report.MdtestFilesDirectories
	switch {
	case o.FilesOnly:
		kind = report.MdtestFiles
	case o.DirsOnly:
		kind = report.MdtestDirectories
	}
	h := report.MdtestHeader{
		Path: strings.Join(o.Dirs, "@"), Tasks: r.size, Items: r.totalItems(), ItemsPerRank: r.layout.ItemsPerRank,
		ItemKind: kind, Iterations: o.Iterations,
		PrintRateAndTime: o.PrintTime, PrintTime: o.TimeOnly, ShowRankStatistics: o.ShowRankStatistics,
		PrintAllProcs: o.PrintAllProcs,
		Warnings:      r.warnings,
	}
	if r.env.Run.Hosts <= 1 {
		h.Nodemap = strings.Repeat("1", out.Run.Ranks)
	}
	if fi := r.fsInfo; fi != nil && fi.TotalBytes > 0 {
		h.Capacity, h.UsedCapacity, h.Inodes, h.UsedInodes = fi.Figures()
	}

	rate := report.Table{Name: report.MdtestRateTable, Columns: report.MdtestRateColumns()}
	tm := report.Table{Name: report.MdtestTimeTable, Columns: report.MdtestTimeColumns()}
	ranks := report.Table{Name: report.MdtestRanksTable, Columns: report.MdtestRanksColumns()}
	errs := report.Table{Name: report.MdtestErrorsTable, Columns: report.MdtestErrorsColumns()}
	for _, op := range report.MdtestOperations() {
		var iterRates, iterTimes, rankRates, rankTimes []float64
		var failed int64
		var first failure
		ran := false
		for i := range res.phases {
			p := &res.phases[i]
			if p.name != op {
				continue
			}
			ran = true
			ar, at, items := aggregate(p)
			iterRates = append(iterRates, ar)
			iterTimes = append(iterTimes, at)
			ranks.Rows = append(ranks.Rows, report.MdtestIteration{Iteration: p.iter, Operation: op, Rate: ar, Time: at, Items: items}.Row())
			for k, rk := range p.ranks {
				if rk.items <= 0 {
					continue
				}
				rr := perSecond(rk.items, rk.before)
				rankRates = append(rankRates, rr)
				rankTimes = append(rankTimes, rk.before)
				ranks.Rows = append(ranks.Rows, report.MdtestRank{Iteration: p.iter, Rank: k, Operation: op,
					Rate: rr, Time: rk.before, Items: int64(rk.items)}.Row())
			}
			if p.failed > 0 && failed == 0 {
				first = decodeFailure(p.first)
			}
			failed += p.failed
		}
		if op == report.MdtestDirRead {
			continue // timed and in the per-rank figures, never in mdtest's summary
		}
		if !ran {
			if r.relevant(op) {
				nan := math.NaN()
				rate.Rows = append(rate.Rows, report.MdtestSummary{Operation: op, Max: nan, Min: nan, Mean: nan, StdDev: nan,
					RankMax: nan, RankMin: nan, RankMean: nan}.RateRow())
				tm.Rows = append(tm.Rows, report.MdtestSummary{Operation: op, Max: nan, Min: nan, Mean: nan, StdDev: nan,
					RankMax: nan, RankMin: nan, RankMean: nan}.TimeRow())
			}
			continue
		}
		// mdtest's summary: the sample deviation over the iterations
		// (summarize_results_rank0 divides by iterations-1); a figure the
		// clock did not see (NaN) leaves its whole summary unmeasured.
		ir, rr := report.Summarize(iterRates).Strict(), report.Summarize(rankRates).Strict()
		rate.Rows = append(rate.Rows, report.MdtestSummary{Operation: op, Max: ir.Max, Min: ir.Min, Mean: ir.Mean, StdDev: ir.Stddev,
			RankMax: rr.Max, RankMin: rr.Min, RankMean: rr.Mean, Iterations: iterRates, Ranks: rankRates}.RateRow())
		it, rt := report.Summarize(iterTimes).Strict(), report.Summarize(rankTimes).Strict()
		tm.Rows = append(tm.Rows, report.MdtestSummary{Operation: op, Max: it.Max, Min: it.Min, Mean: it.Mean, StdDev: it.Stddev,
			RankMax: rt.Max, RankMin: rt.Min, RankMean: rt.Mean, Iterations: iterTimes, Ranks: rankTimes}.TimeRow())
		if failed > 0 {
			errs.Rows = append(errs.Rows, report.MdtestError{Phase: op, Count: failed, Op: first.op, Path: first.path, Err: first.err}.Row())
		}
	}
	out.Tables = []report.Table{
		{Name: report.MdtestHeaderTable, Columns: report.MdtestHeaderColumns(), Rows: h.Rows()},
		rate, tm, ranks,
	}
	if len(errs.Rows) > 0 {
		out.Tables = append(out.Tables, errs)
	}
	if o.StonewallSeconds > 0 {
		stone := report.Table{Name: report.MdtestStonewallTable, Columns: report.MdtestStonewallColumns()}
		for i := range res.phases {
			if p := &res.phases[i]; p.stoneTime > 0 { // NaN or 0: not a -W create phase
				stone.Rows = append(stone.Rows, report.Row{Labels: []string{p.name, strconv.Itoa(p.iter)},
					Metrics: []float64{float64(p.stoneItems), p.stoneTime, perSecond(float64(p.stoneItems), p.stoneTime)}})
			}
		}
		if len(stone.Rows) > 0 {
			out.Tables = append(out.Tables, stone)
		}
	}
	out.Tables = append(out.Tables, r.distTables(res)...)
	if o.Steady.On() {
		out.Run.Env[envUntilSteady] = r.steadyFact(res)
	}
	return out
}

// relevant reports whether a phase that did not run still gets a row, as
// mdtest prints 0.000 for the phases of the kinds it tested (File read
// with -C -T -r) but leaves out the other kind and Directory read.
func (r *runner) relevant(op string) bool {
	switch {
	case op == report.MdtestDirRead:
		return false
	case isTree(op):
		return true
	case strings.HasPrefix(op, "Directory"):
		return !r.o.FilesOnly && (op != report.MdtestDirRename || r.o.Rename)
	}
	return !r.o.DirsOnly
}

// totalItems is the header's item count: every rank's, or with -S the
// items all ranks share.
func (r *runner) totalItems() int64 {
	if r.o.SharedFile {
		return r.layout.ItemsPerRank
	}
	return r.layout.ItemsPerRank * int64(r.size)
}
