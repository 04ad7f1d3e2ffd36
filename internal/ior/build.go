package ior

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/report"
)

// resultBuilder assembles the Result on rank 0, test by test, in the
// convention of report's IOR writers.
type resultBuilder struct {
	env     Env
	size    int
	r       *report.Result
	summary report.Table
	dist    distTables
	coll    []collTest
}

func newResultBuilder(env Env, size int, began time.Time) *resultBuilder {
	r := report.New("ior")
	r.Run = env.Run
	r.Run.Benchmark = "ior"
	r.Run.Start, r.Run.End = began, time.Time{}
	r.Run.Ranks = size
	r.Run.Env = maps.Clone(env.Run.Env)
	if r.Run.Env == nil {
		r.Run.Env = map[string]string{}
	}
	r.Run.Env[report.EnvMachine] = env.Machine
	r.Run.Env["platform"] = env.Platform
	return &resultBuilder{env: env, size: size, r: r,
		summary: report.Table{Name: report.IORSummaryTable, Columns: report.IORSummaryColumns()}}
}

// finish returns the Result.
func (b *resultBuilder) finish(finished time.Time) *report.Result {
	b.r.Run.End = finished
	b.r.Tables = append(b.r.Tables, b.summary)
	b.r.Tables = append(b.r.Tables, b.dist.tables()...)
	if tb, ok := collTable(b.coll); ok {
		b.r.Tables = append(b.r.Tables, tb)
	}
	return b.r
}

// addTest adds one test's tables and its summary rows.
func (b *resultBuilder) addTest(o *config.Options, t *tester, res *testResult) {
	if b.r.Params == nil {
		b.r.Params = append(settingParams(b.parameters(o, t)), distParams(o)...)
	}
	if d, ok := t.be.(aiori.Describer); ok {
		maps.Copy(b.r.Run.Env, d.Describe()) // where the data went (DFS: pool, class, chunk)
	}
	b.r.Tables = append(b.r.Tables, b.testTables(o, t, res)...)
	b.dist.add(o.ID, res, b.env.RankHosts)
	if o.Collective {
		b.coll = append(b.coll, collTest{id: o.ID, bufSize: o.Hints.BufferSize, records: t.coll})
	}
	for _, op := range []string{report.IORWrite, report.IORRead} {
		if row, ok := b.summaryRow(o, t, res, op); ok {
			b.summary.Rows = append(b.summary.Rows, row)
		}
	}
}

// partial returns the run so far, the test in progress included, without
// the summary: what report.WriteIORProgress renders.
func (b *resultBuilder) partial(o *config.Options, t *tester, res *testResult) *report.Result {
	r := *b.r
	r.Tables = append(append([]report.Table(nil), b.r.Tables...), b.testTables(o, t, res)...)
	return &r
}

// testTables returns one test's tables.
func (b *resultBuilder) testTables(o *config.Options, t *tester, res *testResult) []report.Table {
	k := o.ID
	return []report.Table{
		{Name: report.IORTableName(k, report.IORHeader), Columns: report.IORHeaderColumns(), Rows: b.header(o, t)},
		{Name: report.IORTableName(k, report.IOROptions), Columns: report.IORSettingColumns(), Rows: b.options(o, t)},
		{Name: report.IORTableName(k, report.IORParameters), Columns: report.IORSettingColumns(), Rows: b.parameters(o, t)},
		{Name: report.IORTableName(k, report.IORResults), Columns: report.IORResultsColumns(), Rows: b.results(o, t, res)},
		{Name: report.IORTableName(k, report.IORRanks), Columns: report.IORRanksColumns(), Rows: b.ranks(t, res)},
	}
}

// header is IOR's per-test header: TestID, StartTime, Path, FS.
func (b *resultBuilder) header(o *config.Options, t *tester) []report.Row {
	rows := []report.Row{
		report.IORHeaderRow(report.IORTestID, strconv.Itoa(o.ID)),
		report.IORHeaderRow(report.IORStartTime, report.IORHeaderTime(t.start)),
		report.IORHeaderRow(report.IORPath, o.TestFile),
	}
	if fs := t.fs; fs != nil && fs.TotalBytes > 0 {
		capacity, used, inodes, usedInodes := fs.Figures()
		rows = append(rows,
			report.IORHeaderRow(report.IORCapacity, capacity), report.IORHeaderRow(report.IORUsedCapacity, used),
			report.IORHeaderRow(report.IORInodes, inodes), report.IORHeaderRow(report.IORUsedInodes, usedInodes))
	}
	return rows
}

// iorSize formats a size as IOR's HumanReadable does in base two: whole
// units without decimals ("1 MiB"), others with two, and below a MiB in
// bytes ("524288 bytes": IOR has no KiB).
func iorSize(v int64) string {
	units := []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}}
	for _, u := range units {
		if v >= u.size {
			if v%u.size == 0 {
				return fmt.Sprintf("%d %s", v/u.size, u.name)
			}
			return fmt.Sprintf("%.2f %s", float64(v)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", v)
}

// ordering names IOR's "ordering inter file".
func ordering(o *config.Options) string {
	switch {
	case o.ReorderTasks:
		return "constant task offset"
	case o.ReorderTasksRandom > 0:
		return "random task offset"
	}
	return "no tasks offsets"
}

// options is IOR's "Options:" block, in IOR's order.
func (b *resultBuilder) options(o *config.Options, t *tester) []report.Row {
	str, num := report.IORStringSetting, report.IORIntSetting
	access := "single-shared-file"
	if o.FilePerProc {
		access = "file-per-process"
	}
	typ := "independent"
	if o.Collective {
		typ = "collective"
	}
	inFile := "sequential"
	if o.RandomOffset > 0 {
		inFile = "random"
	}
	rows := []report.Row{
		str("api", o.API),
		str("apiVersion", t.be.Version()),
		str("test filename", o.TestFile),
		str("access", access),
		str("type", typ),
	}
	rows = append(rows, t.collOptions(o)...)
	rows = append(rows,
		num("segments", o.SegmentCount),
		str("ordering in a file", inFile),
		str("ordering inter file", ordering(o)),
	)
	if o.ReorderTasks || o.ReorderTasksRandom > 0 {
		rows = append(rows, num("task offset", int64(o.TaskPerNodeOffset)))
		if o.ReorderTasksRandom > 0 {
			rows = append(rows, num("reorder random seed", int64(o.ReorderTasksRandomSeed)))
		}
	}
	rows = append(rows,
		num("nodes", int64(t.env.Run.Hosts)),
		num("tasks", int64(t.numTasks)),
		num("clients per node", int64(b.tasksPerNode(t))),
	)
	if o.MemoryPerTask > 0 {
		rows = append(rows, str("memoryPerTask", iorSize(t.hog.task)))
	}
	if t.hog.node > 0 {
		rows = append(rows, str("memoryPerNode", iorSize(t.hog.node)))
	}
	rows = append(rows,
		str("memoryBuffer", "CPU"),
		str("dataAccess", "CPU"),
		str("GPUDirect", "0"),
		num("repetitions", int64(o.Repetitions)),
		str("xfersize", iorSize(o.TransferSize)),
		str("blocksize", iorSize(o.BlockSize)),
		str("aggregate filesize", iorSize(o.AggregateSize(t.numTasks))),
	)
	if o.DryRun {
		rows = append(rows, num("dryRun", 1))
	}
	if o.Verbose > 0 {
		rows = append(rows, num("verbose", int64(o.Verbose)))
	}
	if o.DeadlineForStonewalling > 0 {
		rows = append(rows, num("stonewallingTime", int64(o.DeadlineForStonewalling)),
			num("stoneWallingWearOut", b2i(o.StoneWallingWearOut)))
	}
	return rows
}

// tasksPerNode is IOR's tPN and "clients per node", its numTasksOnNode0:
// the job's tasks on a node, whatever -N, as IOR prints them (or tasks
// over nodes, at least one, when the launcher does not say).
func (b *resultBuilder) tasksPerNode(t *tester) int {
	if t.env.HostRanks > 0 {
		return t.env.HostRanks
	}
	return max(1, t.numTasks/max(1, t.env.Run.Hosts))
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// parameters is IOR's JSON "Parameters" object, in IOR's order.
func (b *resultBuilder) parameters(o *config.Options, t *tester) []report.Row {
	str, num := report.IORStringSetting, report.IORIntSetting
	return []report.Row{
		num("testID", int64(o.ID)),
		num("refnum", int64(o.RefNum)),
		str("api", o.API),
		str("platform", cmp.Or(o.Platform, b.env.Platform)),
		str("testFileName", o.TestFile),
		num("deadlineForStonewall", int64(o.DeadlineForStonewalling)),
		num("stoneWallingWearOut", b2i(o.StoneWallingWearOut)),
		num("maxTimeDuration", int64(o.MaxTimeDuration)),
		num("outlierThreshold", int64(o.OutlierThreshold)),
		str("options", "(null)"),
		num("dryRun", b2i(o.DryRun)),
		num("nodes", int64(t.env.Run.Hosts)),
		num("memoryPerTask", o.MemoryPerTask),
		num("memoryPerNode", t.hog.node),
		num("tasksPerNode", int64(b.tasksPerNode(t))),
		num("repetitions", int64(o.Repetitions)),
		num("multiFile", b2i(o.MultiFile)),
		num("interTestDelay", int64(o.InterTestDelay/time.Second)), // IOR's int: whole seconds
		num("fsync", b2i(o.Fsync)),
		num("fsyncperwrite", b2i(o.FsyncPerWrite)),
		num("useExistingTestFile", b2i(o.UseExistingTestFile)),
		num("uniqueDir", b2i(o.UniqueDir)),
		num("singleXferAttempt", b2i(o.SingleXferAttempt)),
		num("readFile", b2i(o.ReadFile)),
		num("writeFile", b2i(o.WriteFile)),
		num("filePerProc", b2i(o.FilePerProc)),
		num("reorderTasks", b2i(o.ReorderTasks)),
		num("reorderTasksRandom", int64(o.ReorderTasksRandom)),
		num("reorderTasksRandomSeed", int64(o.ReorderTasksRandomSeed)),
		num("randomOffset", int64(o.RandomOffset)),
		num("checkWrite", b2i(o.CheckWrite)),
		num("checkRead", b2i(o.CheckRead)),
		num("dataPacketType", int64(o.DataPacketType)),
		num("keepFile", b2i(o.KeepFile)),
		num("keepFileWithError", b2i(o.KeepFileWithError)),
		num("warningAsErrors", b2i(o.WarningAsErrors)),
		num(report.IORParamVerbose, int64(o.Verbose)),
		str("data packet type", o.DataPacketType.String()[:1]),
		num("setTimeStampSignature/incompressibleSeed", o.TimeStampSignature),
		num("collective", b2i(o.Collective)),
		num("segmentCount", o.SegmentCount),
		num("transferSize", o.TransferSize),
		num("blockSize", o.BlockSize),
	}
}

// results is the per-iteration table.
func (b *resultBuilder) results(o *config.Options, t *tester, res *testResult) []report.Row {
	var rows []report.Row
	for _, f := range res.phases {
		if f.access == report.IORRemove {
			rows = append(rows, report.IORRemoveRow(f.iter, f.total))
			continue
		}
		rows = append(rows, report.IORPhase{
			Access: f.access, Iter: f.iter,
			BW:      div(float64(f.bytes)/(1<<20), f.total),
			IOPS:    div(float64(f.bytes)/float64(o.TransferSize), f.wrrd),
			Latency: f.latency,
			Block:   o.BlockSize, Xfer: o.TransferSize,
			Open: f.open, WrRd: f.wrrd, Close: f.close, Total: f.total,
			Tasks:  t.numTasks,
			Errors: f.errors,
		}.Row())
	}
	return rows
}

// div is a/b, NaN when b is not positive.
func div(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	return a / b
}

// ranks is the per-rank table behind saveRankPerformanceDetailsCSV.
func (b *resultBuilder) ranks(t *tester, res *testResult) []report.Row {
	var rows []report.Row
	for _, f := range res.phases {
		if f.access == report.IORRemove {
			continue
		}
		per := float64(f.bytes) / float64(max(1, t.numTasks))
		for r := range f.rankTotal {
			rows = append(rows, report.IORRank{
				Access: f.access, Iter: f.iter, Rank: r,
				RuntimeWithOpenClose: f.rankTotal[r], Runtime: f.rankXfer[r],
				ThroughputWithOpenClose: div(per, f.rankTotal[r]), Throughput: div(per, f.rankXfer[r]),
			}.Row())
		}
	}
	return rows
}

// summaryRow is IOR's long summary of operation op over the repetitions.
func (b *resultBuilder) summaryRow(o *config.Options, t *tester, res *testResult, op string) (report.Row, bool) {
	var bw, ops, times, aggs, stoneT, stoneBW []float64
	for _, f := range res.phases {
		if f.access != op {
			continue
		}
		bw = append(bw, div(float64(f.bytes)/(1<<20), f.total))
		ops = append(ops, div(float64(f.bytes)/float64(o.TransferSize), f.total))
		times = append(times, f.total)
		aggs = append(aggs, float64(f.bytes)/(1<<20))
		if !math.IsNaN(f.stonewall) {
			stoneT = append(stoneT, f.stonewall)
			stoneBW = append(stoneBW, div(float64(f.stoneBytes)/(1<<20), f.stonewall))
		}
	}
	if len(bw) == 0 {
		return report.Row{}, false
	}
	// IOR's summary over the repetitions: the population deviation
	// (ior.c divides by reps), and one repetition too short to time (NaN)
	// leaves the whole row unmeasured.
	bwS, opS := report.Summarize(bw).Strict(), report.Summarize(ops).Strict()
	tmean, amean := report.Summarize(times).Strict().Mean, report.Summarize(aggs).Strict().Mean
	sT, sBW := math.NaN(), math.NaN()
	if len(stoneT) > 0 {
		sT, sBW = report.Summarize(stoneT).Strict().Mean, report.Summarize(stoneBW).Strict().Mean
	}
	fpp := 0
	if o.FilePerProc {
		fpp = 1
	}
	reord := 0
	if o.ReorderTasks {
		reord = 1
	}
	return report.IORSummary{
		Operation: op, TestID: o.ID, Tasks: t.numTasks, TasksPerNode: b.tasksPerNode(t),
		Reps: o.Repetitions, FilePerProc: fpp, Reorder: reord, ReorderOffset: o.TaskPerNodeOffset,
		ReorderRandom: o.ReorderTasksRandom, Seed: o.ReorderTasksRandomSeed,
		Segments: o.SegmentCount, BlockSize: o.BlockSize, TransferSize: o.TransferSize,
		API: o.API, RefNum: o.RefNum,
		BWMax: bwS.Max, BWMin: bwS.Min, BWMean: bwS.Mean, BWStdDev: bwS.StddevPop,
		OPsMax: opS.Max, OPsMin: opS.Min, OPsMean: opS.Mean, OPsStdDev: opS.StddevPop,
		MeanTime: tmean, StonewallTime: sT, StonewallBW: sBW, AggMiB: amean,
		BW: bw, OPs: ops,
	}.Row(), true
}

// dirOf is the directory of a test file, for statfs.
func dirOf(path string) string {
	return filepath.Dir(path)
}
