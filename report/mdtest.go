package report

import (
	"strconv"
	"time"
)

// Conventions between the mdtest engine (internal/mdtest) and the mdtest
// writers (WriteMdtest, WriteMdtestJSON, WriteMdtestCSV,
// WriteMdtestRankCSV). The writers read only the Result, so what follows
// is the whole contract.
//
// Run: Benchmark "mdtest"; Command is argv as typed (mdtest's "Command
// line used:" prints the program, then each argument single-quoted);
// Version is the hpcbench build; Start and End are mdtest's "-- started
// at --" and "-- finished at --" (see MdtestTime); Ranks and Hosts are the
// "N total task(s) on M node(s)"; Env[EnvMachine] is optional and only
// reaches the JSON.
//
// Tables, each found by its name, in any order:
//
//   - MdtestHeaderTable: MdtestHeaderColumns (labels "name", "value"), rows
//     best built by MdtestHeader.Rows. Required rows: MdtestPath,
//     MdtestTasks, MdtestItems (the total), MdtestItemsPerRank (-n, or
//     -I times the tree's directories), MdtestItemKind (MdtestFiles,
//     MdtestDirectories or MdtestFilesDirectories) and MdtestIterations.
//     Optional: MdtestNodemap ("11"), the FS rows MdtestCapacity,
//     MdtestUsedCapacity, MdtestInodes and MdtestUsedInodes (all four or
//     none, as IOR's header), the layout flags MdtestPrintRateAndTime
//     (-P), MdtestPrintTime (-Z), MdtestShowRankStatistics
//     (--showRankStatistics) and MdtestPrintAllProcs (--print-all-procs,
//     which makes WriteMdtest need the ranks table), "1" or "0" (absent
//     means 0), and any number of MdtestWarning rows, printed in order.
//   - MdtestRateTable: MdtestRateColumns; one row per operation relevant
//     to the run, in mdtest's order (MdtestOperations), built by
//     MdtestSummary.RateRow: max, min, mean and sample stddev over the
//     iterations of the per-iteration aggregate rate (ops/s), and rankMax,
//     rankMin, rankMean over every rank's rate before the closing barrier
//     of every iteration. NaN for a phase that did not run (-C -T -r leaves
//     File read out) or a figure not computed.
//   - MdtestTimeTable: MdtestTimeColumns; the same operations in the same
//     order, built by MdtestSummary.TimeRow: the phase's duration in
//     seconds (the per-iteration time is the slowest rank's, after the
//     barrier; the per-rank columns use each rank's time before it).
//   - MdtestRanksTable: MdtestRanksColumns (labels iteration, rank,
//     operation; metrics rate ops/s, time s, items): one MdtestIteration
//     row (rank MdtestAllRanks) per operation per iteration holding the
//     aggregate figures, and one MdtestRank row per rank per operation per
//     iteration. Required by WriteMdtestJSON and WriteMdtestRankCSV.
//   - MdtestErrorsTable (optional): MdtestErrorsColumns, one MdtestError
//     row per phase in which operations failed.
//
// Phases are named by mdtest's own row names (MdtestDirCreate, ...).
const (
	// MdtestHeaderTable names the table of the lines above mdtest's
	// summary: Nodemap, Path, FS, "N tasks, M files", and the layout flags.
	MdtestHeaderTable = "mdtest header"
	// MdtestRateTable names the table behind "SUMMARY rate".
	MdtestRateTable = "mdtest rate"
	// MdtestTimeTable names the table behind "SUMMARY time".
	MdtestTimeTable = "mdtest time"
	// MdtestRanksTable names the per-iteration and per-rank figures.
	MdtestRanksTable = "mdtest ranks"
	// MdtestErrorsTable names the table of failed operations.
	MdtestErrorsTable = "mdtest errors"
	// MdtestStonewallTable names the figures of a -W create phase at the
	// stonewall, before the ranks caught up (mdtest's
	// stonewall_item_sum and stonewall_time, IO500's rate-stonewall):
	// MdtestStonewallColumns. Only runs with -W have it.
	MdtestStonewallTable = "mdtest stonewall"

	// MdtestSchema is the "schema" value at the top of WriteMdtestJSON's
	// document.
	MdtestSchema = "hpcbench/mdtest/1"

	// MdtestAllRanks is the rank label of a MdtestRanksTable row holding
	// an iteration's aggregate figures, as mdtest's CSV names that row.
	MdtestAllRanks = "all"
)

// The names of the MdtestHeaderTable rows.
const (
	MdtestNodemap      = "Nodemap"        // one digit per rank: 1 on rank 0's node, else 0
	MdtestPath         = "Path"           // the test directory, as mdtest's Path line
	MdtestCapacity     = "Capacity"       // file system size, "252.0 GiB"
	MdtestUsedCapacity = "Used Capacity"  // "5.5%"
	MdtestInodes       = "Inodes"         // "16.0 Mi"
	MdtestUsedInodes   = "Used Inodes"    // "2.8%"
	MdtestTasks        = "tasks"          // the tasks of "N tasks, M files"
	MdtestItems        = "items"          // the total M of "N tasks, M files"
	MdtestItemsPerRank = "items per rank" // items each rank handles: -n, or -I times the tree's directories
	MdtestItemKind     = "item kind"      // MdtestFiles, MdtestDirectories or MdtestFilesDirectories
	MdtestIterations   = "iterations"     // -i

	MdtestPrintRateAndTime   = "print rate and time"  // -P: rate and time tables
	MdtestPrintTime          = "print time"           // -Z: the time table only
	MdtestShowRankStatistics = "show rank statistics" // --showRankStatistics: per-rank columns
	MdtestPrintAllProcs      = "print all procs"      // --print-all-procs: every rank's figures before each SUMMARY

	// MdtestWarning rows hold the text of mdtest's "WARNING: ..." lines.
	MdtestWarning = "WARNING"
)

// The values of the MdtestItemKind header row, as mdtest's "N tasks, M
// files" line words them: -F, -D, or both.
const (
	MdtestFiles            = "files"
	MdtestDirectories      = "directories"
	MdtestFilesDirectories = "files/directories"
)

// mdtest's phases, by the names its summary and CSV use.
const (
	MdtestDirCreate  = "Directory creation"
	MdtestDirStat    = "Directory stat"
	MdtestDirRead    = "Directory read" // measured by mdtest, never in its summary
	MdtestDirRename  = "Directory rename"
	MdtestDirRemove  = "Directory removal"
	MdtestFileCreate = "File creation"
	MdtestFileStat   = "File stat"
	MdtestFileRead   = "File read"
	MdtestFileRemove = "File removal"
	MdtestTreeCreate = "Tree creation"
	MdtestTreeRemove = "Tree removal"
)

// MdtestOperations returns mdtest's 11 phases in its order, the order of
// the summary rows and of the CSV columns.
func MdtestOperations() []string {
	return []string{MdtestDirCreate, MdtestDirStat, MdtestDirRead, MdtestDirRename, MdtestDirRemove,
		MdtestFileCreate, MdtestFileStat, MdtestFileRead, MdtestFileRemove, MdtestTreeCreate, MdtestTreeRemove}
}

// mdtestOpIndex returns op's position in MdtestOperations, or -1.
func mdtestOpIndex(op string) int {
	for i, o := range MdtestOperations() {
		if o == op {
			return i
		}
	}
	return -1
}

// MdtestTime formats t as mdtest's "-- started at --" line does:
// "11/29/2026 18:05:01", in t's own location.
func MdtestTime(t time.Time) string {
	return t.Format("01/02/2006 15:04:05")
}

// MdtestStonewallColumns returns the columns of the MdtestStonewallTable:
//
//	operation iter  labels: the create phase and its iteration (0-based)
//	items           every rank's items done when the stonewall was agreed
//	time            s from the phase's start to that agreement (rank 0's)
//	rate            ops/s: items / time
func MdtestStonewallColumns() []Column {
	return []Column{
		{Name: "operation", Kind: KindLabel},
		{Name: "iter", Kind: KindLabel},
		{Name: "items", Kind: KindMetric},
		{Name: "time", Kind: KindMetric, Unit: "s"},
		{Name: "rate", Kind: KindMetric, Unit: "ops/s", Better: BetterHigher},
	}
}

// MdtestHeaderColumns returns the columns of the MdtestHeaderTable: labels
// "name" and "value".
func MdtestHeaderColumns() []Column {
	return []Column{{Name: "name", Kind: KindLabel}, {Name: "value", Kind: KindLabel}}
}

// MdtestHeaderRow returns one row of the MdtestHeaderTable.
func MdtestHeaderRow(name, value string) Row {
	return Row{Labels: []string{name, value}}
}

// MdtestHeader is the content of the MdtestHeaderTable.
type MdtestHeader struct {
	Nodemap string // "11"; empty leaves mdtest's Nodemap line out
	Path    string // the test directory

	// The FS line; an empty Capacity (statfs failed) leaves it out.
	Capacity, UsedCapacity, Inodes, UsedInodes string

	Tasks        int    // ranks that ran the test
	Items        int64  // total items over all ranks
	ItemsPerRank int64  // items each rank handles (mdtest's -n)
	ItemKind     string // MdtestFiles, MdtestDirectories or MdtestFilesDirectories
	Iterations   int    // -i

	PrintRateAndTime   bool // -P
	PrintTime          bool // -Z
	ShowRankStatistics bool // --showRankStatistics
	PrintAllProcs      bool // --print-all-procs

	Warnings []string // the text of each "WARNING: " line, in order
}

// Rows returns h as the rows of the MdtestHeaderTable.
func (h MdtestHeader) Rows() []Row {
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	var rows []Row
	if h.Nodemap != "" {
		rows = append(rows, MdtestHeaderRow(MdtestNodemap, h.Nodemap))
	}
	rows = append(rows, MdtestHeaderRow(MdtestPath, h.Path))
	if h.Capacity != "" {
		rows = append(rows,
			MdtestHeaderRow(MdtestCapacity, h.Capacity),
			MdtestHeaderRow(MdtestUsedCapacity, h.UsedCapacity),
			MdtestHeaderRow(MdtestInodes, h.Inodes),
			MdtestHeaderRow(MdtestUsedInodes, h.UsedInodes))
	}
	rows = append(rows,
		MdtestHeaderRow(MdtestTasks, strconv.Itoa(h.Tasks)),
		MdtestHeaderRow(MdtestItems, strconv.FormatInt(h.Items, 10)),
		MdtestHeaderRow(MdtestItemsPerRank, strconv.FormatInt(h.ItemsPerRank, 10)),
		MdtestHeaderRow(MdtestItemKind, h.ItemKind),
		MdtestHeaderRow(MdtestIterations, strconv.Itoa(h.Iterations)),
		MdtestHeaderRow(MdtestPrintRateAndTime, flag(h.PrintRateAndTime)),
		MdtestHeaderRow(MdtestPrintTime, flag(h.PrintTime)),
		MdtestHeaderRow(MdtestShowRankStatistics, flag(h.ShowRankStatistics)))
	if h.PrintAllProcs {
		rows = append(rows, MdtestHeaderRow(MdtestPrintAllProcs, "1"))
	}
	for _, w := range h.Warnings {
		rows = append(rows, MdtestHeaderRow(MdtestWarning, w))
	}
	return rows
}

// mdtestSummaryColumns returns the columns of a summary table whose
// figures are in unit, the per-iteration samples under source.
func mdtestSummaryColumns(unit, source string, better Better) []Column {
	m := func(name, source string, better Better) Column {
		return Column{Name: name, Kind: KindMetric, Unit: unit, Source: source, Better: better}
	}
	return []Column{
		{Name: "operation", Kind: KindLabel},
		m("max", source, better),
		m("min", source, better),
		m("mean", source, better),
		m("stddev", source, ""),
		m("rankMax", "rank", better),
		m("rankMin", "rank", better),
		m("rankMean", "rank", better),
	}
}

// MdtestRateColumns returns the columns of the MdtestRateTable:
//
//	operation                label: a phase, see MdtestOperations
//	max min mean stddev      ops/s over the iterations (samples "rate":
//	                         each iteration's aggregate rate)
//	rankMax rankMin rankMean ops/s over every rank's rate before the
//	                         barrier, every iteration (samples "rank")
func MdtestRateColumns() []Column {
	return mdtestSummaryColumns("ops/s", "rate", BetterHigher)
}

// MdtestTimeColumns returns the columns of the MdtestTimeTable: those of
// MdtestRateColumns in seconds, the per-iteration samples under "time".
func MdtestTimeColumns() []Column {
	return mdtestSummaryColumns("s", "time", BetterLower)
}

// MdtestSummary is one row of the MdtestRateTable (ops/s) or the
// MdtestTimeTable (seconds). Use NaN for a figure not measured.
type MdtestSummary struct {
	Operation                  string  // a phase, see MdtestOperations
	Max, Min, Mean, StdDev     float64 // over the iterations; StdDev is the sample deviation
	RankMax, RankMin, RankMean float64 // over every rank of every iteration

	// Iterations and Ranks optionally keep the figures the statistics came
	// from: one per iteration, one per rank per iteration.
	Iterations, Ranks []float64
}

// RateRow returns s as a row of MdtestRateColumns.
func (s MdtestSummary) RateRow() Row { return s.row("rate") }

// TimeRow returns s as a row of MdtestTimeColumns.
func (s MdtestSummary) TimeRow() Row { return s.row("time") }

func (s MdtestSummary) row(source string) Row {
	row := Row{
		Labels:  []string{s.Operation},
		Metrics: []float64{s.Max, s.Min, s.Mean, s.StdDev, s.RankMax, s.RankMin, s.RankMean},
	}
	if len(s.Iterations) > 0 || len(s.Ranks) > 0 {
		row.Samples = map[string][]float64{}
		if len(s.Iterations) > 0 {
			row.Samples[source] = s.Iterations
		}
		if len(s.Ranks) > 0 {
			row.Samples["rank"] = s.Ranks
		}
	}
	return row
}

// MdtestRanksColumns returns the columns of the MdtestRanksTable:
//
//	iteration  label: 0-based
//	rank       label: the rank, or MdtestAllRanks for the aggregate
//	operation  label: a phase, see MdtestOperations
//	rate       ops/s: items / time
//	time       s: a rank's time before the barrier; for the aggregate the
//	           phase's time after it
//	items      the items handled (all ranks' for the aggregate)
func MdtestRanksColumns() []Column {
	return []Column{
		{Name: "iteration", Kind: KindLabel},
		{Name: "rank", Kind: KindLabel},
		{Name: "operation", Kind: KindLabel},
		{Name: "rate", Kind: KindMetric, Unit: "ops/s", Better: BetterHigher},
		{Name: "time", Kind: KindMetric, Unit: "s", Better: BetterLower},
		{Name: "items", Kind: KindMetric},
	}
}

// MdtestIteration is the aggregate row of one phase of one iteration in
// the MdtestRanksTable (rank MdtestAllRanks).
type MdtestIteration struct {
	Iteration int     // 0-based
	Operation string  // a phase, see MdtestOperations
	Rate      float64 // ops/s
	Time      float64 // s
	Items     int64   // items over all ranks
}

// Row returns it as a row of MdtestRanksColumns.
func (it MdtestIteration) Row() Row {
	return Row{
		Labels:  []string{strconv.Itoa(it.Iteration), MdtestAllRanks, it.Operation},
		Metrics: []float64{it.Rate, it.Time, float64(it.Items)},
	}
}

// MdtestRank is one rank's row for one phase of one iteration in the
// MdtestRanksTable.
type MdtestRank struct {
	Iteration int     // 0-based
	Rank      int     // the rank
	Operation string  // a phase, see MdtestOperations
	Rate      float64 // ops/s, items / Time
	Time      float64 // s, before the barrier
	Items     int64   // items this rank handled
}

// Row returns k as a row of MdtestRanksColumns.
func (k MdtestRank) Row() Row {
	return Row{
		Labels:  []string{strconv.Itoa(k.Iteration), strconv.Itoa(k.Rank), k.Operation},
		Metrics: []float64{k.Rate, k.Time, float64(k.Items)},
	}
}

// MdtestErrorsColumns returns the columns of the MdtestErrorsTable:
//
//	phase  label: the phase, see MdtestOperations
//	op     label: the failing call of the first failure ("stat", "mkdir")
//	path   label: its path
//	error  label: its error text, errno's words ("no such file or directory")
//	count  the operations that failed in the phase, over all ranks and
//	       iterations
//
// Op, path and error are the fields of Go's *fs.PathError.
func MdtestErrorsColumns() []Column {
	return []Column{
		{Name: "phase", Kind: KindLabel},
		{Name: "op", Kind: KindLabel},
		{Name: "path", Kind: KindLabel},
		{Name: "error", Kind: KindLabel},
		{Name: "count", Kind: KindMetric, Better: BetterLower},
	}
}

// MdtestError is one row of the MdtestErrorsTable: the failures of one
// phase and the first of them.
type MdtestError struct {
	Phase string // a phase, see MdtestOperations
	Count int64  // failed operations
	Op    string // the first failure's call, "stat"
	Path  string // its path
	Err   string // its error text, "no such file or directory"
}

// Row returns e as a row of MdtestErrorsColumns.
func (e MdtestError) Row() Row {
	return Row{Labels: []string{e.Phase, e.Op, e.Path, e.Err}, Metrics: []float64{float64(e.Count)}}
}
