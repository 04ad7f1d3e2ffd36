package report

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Conventions between the IOR engine (internal/ior) and the IOR writers
// (WriteIOR, WriteIORJSON, WriteIORCSV, WriteIORRankCSV). The writers read
// only the Result, so what follows is the whole contract.
//
// Run: Benchmark "ior"; Command is argv as typed ("Command line" joins it
// with single spaces, as IOR does); Version is the hpcbench build; Start is
// IOR's "Began" and End its "Finished" (shown in their own location, in C's
// asctime layout, see IORTime); Env[EnvMachine] is uname's sysname and
// nodename, "Linux vm". Ranks is the job's task count.
//
// Per test k (0, 1, ... with no gaps; one test unless IOR's script mode
// ran several), five tables named by IORTableName(k, kind):
//
//   - IORHeader: IORHeaderColumns (labels "name", "value"); rows named
//     IORTestID (an integer), IORStartTime (RFC 3339; see IORHeaderTime),
//     IORPath, and, when statfs worked, IORCapacity ("252.0 GiB"),
//     IORUsedCapacity ("5.4%"), IORInodes ("16.0 Mi"), IORUsedInodes
//     ("2.8%"). Rows are found by name; order does not matter.
//   - IOROptions: IORSettingColumns (labels "name", "type", "value", type
//     IORTypeInt or IORTypeString): IOR's "Options:" block in IOR's order
//     (api, apiVersion, test filename, access, type, segments, ...). The
//     type is what IOR's JSON uses: segments, nodes, tasks, clients per
//     node, repetitions are ints; GPUDirect is the string "0".
//   - IORParameters: IORSettingColumns: IOR's JSON "Parameters" object in
//     IOR's order (testID, refnum, api, ..., transferSize,
//     blockSize), including "platform" ("vm(Linux)"). Its IORParamVerbose
//     entry sets the test's verbosity.
//     Unlike IOR, "data packet type" holds the real first letter of the
//     packet type (t, o, i, r): IOR 4 prints "g" for timestamp, one off.
//   - IORResults: IORResultsColumns; one row per phase per iteration in the
//     order the phases ran: write, read, then remove (when the files were
//     removed), see IORPhase.
//   - IORRanks (optional; WriteIORRankCSV needs it): IORRanksColumns; one
//     row per rank per phase per iteration, see IORRank.
//
// And one table for the whole run, IORSummaryTable, with
// IORSummaryColumns: one row per operation (write, read) per test, in test
// order, see IORSummary.
//
// Build rows with IORHeaderRow, IORIntSetting, IORStringSetting, IORPhase.Row,
// IORRank.Row and IORSummary.Row so that they always fit the columns.
const (
	// IORHeader, IOROptions, IORParameters, IORResults and IORRanks are the
	// kinds of per-test table, for IORTableName.
	IORHeader     = "header"
	IOROptions    = "options"
	IORParameters = "parameters"
	IORResults    = "results"
	IORRanks      = "ranks"

	// IORSummaryTable names the table behind IOR's "Summary of all tests".
	IORSummaryTable = "ior summary"

	// IORSchema is the "schema" value at the top of WriteIORJSON's document.
	IORSchema = "hpcbench/ior/1"

	// EnvMachine is the Run.Env key holding IOR's "Machine": uname's
	// sysname and nodename, "Linux vm".
	EnvMachine = "machine"

	// IORParamVerbose is the parameter holding IOR's verbosity (-v counts).
	// At 1 or more the writers show remove rows and the Max Write / Max Read
	// lines (JSON: "max"), as IOR does.
	IORParamVerbose = "verbose"

	// IORTypeInt and IORTypeString are the values of the "type" column of
	// options and parameters: a JSON number (the value is a decimal
	// integer) or a JSON string.
	IORTypeInt    = "int"
	IORTypeString = "string"

	// IORWrite, IORRead and IORRemove are the values of the "access" label.
	IORWrite  = "write"
	IORRead   = "read"
	IORRemove = "remove"
)

// The names of the header rows, IOR's own keys.
const (
	IORTestID       = "TestID"        // the test number, an integer
	IORStartTime    = "StartTime"     // RFC 3339, see IORHeaderTime
	IORPath         = "Path"          // IOR's Path line
	IORCapacity     = "Capacity"      // file system size, "252.0 GiB"
	IORUsedCapacity = "Used Capacity" // "5.4%"
	IORInodes       = "Inodes"        // "16.0 Mi"
	IORUsedInodes   = "Used Inodes"   // "2.8%"
)

// iorTablePrefix starts every per-test table name.
const iorTablePrefix = "ior test "

// IORTableName returns the name of the table of the given kind (IORHeader,
// IOROptions, IORParameters, IORResults or IORRanks) for test number test,
// counted from 0: "ior test 0 results".
func IORTableName(test int, kind string) string {
	return iorTablePrefix + strconv.Itoa(test) + " " + kind
}

// ParseIORTableName splits a name made by IORTableName.
func ParseIORTableName(name string) (test int, kind string, ok bool) {
	rest, ok := strings.CutPrefix(name, iorTablePrefix)
	if !ok {
		return 0, "", false
	}
	n, kind, ok := strings.Cut(rest, " ")
	if !ok {
		return 0, "", false
	}
	switch kind {
	case IORHeader, IOROptions, IORParameters, IORResults, IORRanks:
	default:
		return 0, "", false
	}
	test, err := strconv.Atoi(n)
	if err != nil || test < 0 || strconv.Itoa(test) != n {
		return 0, "", false
	}
	return test, kind, true
}

// IORTime formats t as IOR does (C's asctime without the newline):
// "Sun Nov 29 18:03:15 2026", in t's own location.
func IORTime(t time.Time) string {
	return t.Format(time.ANSIC)
}

// IORHeaderTime formats t for the IORStartTime header row: RFC 3339, which
// the writers show with IORTime.
func IORHeaderTime(t time.Time) string {
	return t.Format(time.RFC3339)
}

// IORHeaderColumns returns the columns of an IORHeader table: labels
// "name" and "value".
func IORHeaderColumns() []Column {
	return []Column{{Name: "name", Kind: KindLabel}, {Name: "value", Kind: KindLabel}}
}

// IORHeaderRow returns a row of an IORHeader table.
func IORHeaderRow(name, value string) Row {
	return Row{Labels: []string{name, value}}
}

// IORSettingColumns returns the columns of the IOROptions and
// IORParameters tables: labels "name", "type" and "value".
func IORSettingColumns() []Column {
	return []Column{{Name: "name", Kind: KindLabel}, {Name: "type", Kind: KindLabel}, {Name: "value", Kind: KindLabel}}
}

// IORIntSetting returns an option or parameter row whose JSON value is the
// number v.
func IORIntSetting(name string, v int64) Row {
	return Row{Labels: []string{name, IORTypeInt, strconv.FormatInt(v, 10)}}
}

// IORStringSetting returns an option or parameter row whose JSON value is
// the string v.
func IORStringSetting(name, v string) Row {
	return Row{Labels: []string{name, IORTypeString, v}}
}

// IORResultsColumns returns the columns of an IORResults table, one per
// field of IOR's per-iteration table (plus tasks and errors):
//
//	access   label: IORWrite, IORRead or IORRemove
//	iter     label: the 0-based repetition
//	bw       MiB/s  aggregate bytes moved / total time
//	iops     ops/s  transfers / wr/rd time (IOR's row IOPS)
//	latency  s      rank 0's wr/rd time / its transfers (as IOR prints)
//	block    B      -b, shown in KiB
//	xfer     B      -t, shown in KiB
//	open     s      earliest open start to latest open stop
//	wrrd     s      the same for the transfers
//	close    s      the same for close
//	total    s      earliest open start to latest close stop
//	tasks           the number of tasks (IOR's CSV numTasks)
//	errors          verification errors found (-W for write rows, -R for
//	                read rows, counted per transfer); NaN when not checked
func IORResultsColumns() []Column {
	sec := func(name string) Column {
		return Column{Name: name, Kind: KindMetric, Unit: "s", Better: BetterLower}
	}
	return []Column{
		{Name: "access", Kind: KindLabel},
		{Name: "iter", Kind: KindLabel},
		{Name: "bw", Kind: KindMetric, Unit: "MiB/s", Better: BetterHigher},
		{Name: "iops", Kind: KindMetric, Unit: "ops/s", Better: BetterHigher},
		sec("latency"),
		{Name: "block", Kind: KindMetric, Unit: "B", Display: "KiB"},
		{Name: "xfer", Kind: KindMetric, Unit: "B", Display: "KiB"},
		sec("open"),
		sec("wrrd"),
		sec("close"),
		sec("total"),
		{Name: "tasks", Kind: KindMetric},
		{Name: "errors", Kind: KindMetric, Better: BetterLower},
	}
}

// IORPhase is one row of an IORResults table. Use NaN for a figure not
// measured; a remove row (see IORRemoveRow) has only Total.
type IORPhase struct {
	Access  string  // IORWrite, IORRead or IORRemove
	Iter    int     // 0-based repetition
	BW      float64 // MiB/s
	IOPS    float64 // ops/s
	Latency float64 // s
	Block   int64   // bytes (-b)
	Xfer    int64   // bytes (-t)
	Open    float64 // s
	WrRd    float64 // s
	Close   float64 // s
	Total   float64 // s
	Tasks   int     // numTasks
	Errors  float64 // errors found, NaN when the data was not checked
}

// Row returns p as a row of IORResultsColumns.
func (p IORPhase) Row() Row {
	return Row{
		Labels: []string{p.Access, strconv.Itoa(p.Iter)},
		Metrics: []float64{p.BW, p.IOPS, p.Latency, float64(p.Block), float64(p.Xfer),
			p.Open, p.WrRd, p.Close, p.Total, float64(p.Tasks), p.Errors},
	}
}

// IORRemoveRow returns the remove row of iteration iter: only the total
// time (seconds) is measured.
func IORRemoveRow(iter int, total float64) Row {
	nan := math.NaN()
	return Row{
		Labels:  []string{IORRemove, strconv.Itoa(iter)},
		Metrics: []float64{nan, nan, nan, nan, nan, nan, nan, nan, total, nan, nan},
	}
}

// IORRanksColumns returns the columns of an IORRanks table, IOR's
// saveRankPerformanceDetailsCSV file plus the iteration:
//
//	access                     label: IORWrite or IORRead
//	iter                       label: the 0-based repetition
//	rank                       label
//	runtime-with-openclose     s    the rank's open start to close stop
//	runtime                    s    the rank's transfer time
//	throughput-withopenclose   B/s  bytes / tasks / runtime-with-openclose
//	throughput                 B/s  bytes / tasks / runtime
func IORRanksColumns() []Column {
	return []Column{
		{Name: "access", Kind: KindLabel},
		{Name: "iter", Kind: KindLabel},
		{Name: "rank", Kind: KindLabel},
		{Name: "runtime-with-openclose", Kind: KindMetric, Unit: "s", Better: BetterLower},
		{Name: "runtime", Kind: KindMetric, Unit: "s", Better: BetterLower},
		{Name: "throughput-withopenclose", Kind: KindMetric, Unit: "B/s", Better: BetterHigher},
		{Name: "throughput", Kind: KindMetric, Unit: "B/s", Better: BetterHigher},
	}
}

// IORRank is one row of an IORRanks table.
type IORRank struct {
	Access                  string  // IORWrite or IORRead
	Iter                    int     // 0-based repetition
	Rank                    int     // the rank
	RuntimeWithOpenClose    float64 // s
	Runtime                 float64 // s
	ThroughputWithOpenClose float64 // bytes/s
	Throughput              float64 // bytes/s
}

// Row returns k as a row of IORRanksColumns.
func (k IORRank) Row() Row {
	return Row{
		Labels:  []string{k.Access, strconv.Itoa(k.Iter), strconv.Itoa(k.Rank)},
		Metrics: []float64{k.RuntimeWithOpenClose, k.Runtime, k.ThroughputWithOpenClose, k.Throughput},
	}
}

// IORSummaryColumns returns the columns of the IORSummaryTable, named
// after the headings of IOR's "Summary of all tests" (the two StdDev
// columns told apart by their group):
//
//	operation                          label: IORWrite or IORRead
//	Test# #Tasks tPN reps fPP reord    labels: integers, as IOR prints them
//	reordoff reordrand seed segcnt
//	blksiz xsize                       labels: bytes
//	API                                label
//	RefNum                             label: integer
//	Max(MiB) Min(MiB) Mean(MiB)        MiB/s over the repetitions (samples "bw")
//	StdDev(MiB)                        MiB/s, the population deviation as IOR's
//	Max(OPs) Min(OPs) Mean(OPs)        ops/s: bytes / xfer / total time (samples "ops")
//	StdDev(OPs)                        ops/s
//	Mean(s)                            s, the mean total time
//	Stonewall(s) Stonewall(MiB)        s and MiB/s; NaN (shown NA) without -D
//	aggs(MiB)                          MiB, the aggregate data moved
func IORSummaryColumns() []Column {
	label := func(name string) Column { return Column{Name: name, Kind: KindLabel} }
	metric := func(name, unit, source string, better Better) Column {
		return Column{Name: name, Kind: KindMetric, Unit: unit, Source: source, Better: better}
	}
	cols := []Column{label("operation")}
	for _, name := range iorSummaryLabels() {
		cols = append(cols, label(name))
	}
	return append(cols,
		metric("Max(MiB)", "MiB/s", "bw", BetterHigher),
		metric("Min(MiB)", "MiB/s", "bw", BetterHigher),
		metric("Mean(MiB)", "MiB/s", "bw", BetterHigher),
		metric("StdDev(MiB)", "MiB/s", "bw", ""),
		metric("Max(OPs)", "ops/s", "ops", BetterHigher),
		metric("Min(OPs)", "ops/s", "ops", BetterHigher),
		metric("Mean(OPs)", "ops/s", "ops", BetterHigher),
		metric("StdDev(OPs)", "ops/s", "ops", ""),
		metric("Mean(s)", "s", "", BetterLower),
		metric("Stonewall(s)", "s", "", ""),
		metric("Stonewall(MiB)", "MiB/s", "", BetterHigher),
		metric("aggs(MiB)", "MiB", "", ""),
	)
}

// iorSummaryLabels returns the configuration columns of IOR's long summary,
// in IORSummaryColumns order after "operation".
func iorSummaryLabels() []string {
	return []string{"Test#", "#Tasks", "tPN", "reps", "fPP", "reord", "reordoff",
		"reordrand", "seed", "segcnt", "blksiz", "xsize", "API", "RefNum"}
}

// IORSummary is one row of the IORSummaryTable: one operation of one test.
type IORSummary struct {
	Operation     string // IORWrite or IORRead
	TestID        int    // Test#
	Tasks         int    // #Tasks
	TasksPerNode  int    // tPN
	Reps          int    // reps
	FilePerProc   int    // fPP (0 or 1)
	Reorder       int    // reord: -C
	ReorderOffset int    // reordoff: -Q
	ReorderRandom int    // reordrand: -Z count
	Seed          int    // seed: -X
	Segments      int64  // segcnt
	BlockSize     int64  // blksiz, bytes
	TransferSize  int64  // xsize, bytes
	API           string // API
	RefNum        int    // RefNum: -A

	BWMax, BWMin, BWMean, BWStdDev     float64 // MiB/s
	OPsMax, OPsMin, OPsMean, OPsStdDev float64 // ops/s
	MeanTime                           float64 // s
	StonewallTime                      float64 // s; NaN without stonewalling
	StonewallBW                        float64 // MiB/s; NaN without stonewalling
	AggMiB                             float64 // MiB moved

	// BW and OPs optionally keep the per-repetition figures the statistics
	// came from (MiB/s, ops/s); they become the row's samples.
	BW, OPs []float64
}

// Row returns s as a row of IORSummaryColumns.
func (s IORSummary) Row() Row {
	itoa := strconv.Itoa
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	row := Row{
		Labels: []string{s.Operation, itoa(s.TestID), itoa(s.Tasks), itoa(s.TasksPerNode), itoa(s.Reps),
			itoa(s.FilePerProc), itoa(s.Reorder), itoa(s.ReorderOffset), itoa(s.ReorderRandom), itoa(s.Seed),
			i64(s.Segments), i64(s.BlockSize), i64(s.TransferSize), s.API, itoa(s.RefNum)},
		Metrics: []float64{s.BWMax, s.BWMin, s.BWMean, s.BWStdDev, s.OPsMax, s.OPsMin, s.OPsMean, s.OPsStdDev,
			s.MeanTime, s.StonewallTime, s.StonewallBW, s.AggMiB},
	}
	if len(s.BW) > 0 || len(s.OPs) > 0 {
		row.Samples = map[string][]float64{}
		if len(s.BW) > 0 {
			row.Samples["bw"] = s.BW
		}
		if len(s.OPs) > 0 {
			row.Samples["ops"] = s.OPs
		}
	}
	return row
}
