package report

// Kind says whether a column identifies a row or measures something.
type Kind string

// The column kinds.
const (
	// KindLabel columns identify a row: a phase name, an iteration number,
	// a message size. Their values are strings.
	KindLabel Kind = "label"
	// KindMetric columns hold figures: float64 values in the column's Unit.
	KindMetric Kind = "metric"
)

// Better says which direction of a metric is an improvement, for compare.
type Better string

// The directions a metric can improve in; the empty Better means unknown or
// not applicable (a repetition count, say).
const (
	BetterLower  Better = "lower"  // times, latencies
	BetterHigher Better = "higher" // bandwidths, rates
)

// Table is one titled table of figures: ordered columns and rows that hold a
// value for each of them.
type Table struct {
	// Name titles the table and identifies it within the Result
	// ("phases", "PingPong", "summary").
	Name string `json:"name"`
	// Columns are in display order; names are unique within the table.
	Columns []Column `json:"columns"`
	// Rows are in display order. Rows should be unique by their labels so
	// that compare can match them across runs.
	Rows []Row `json:"rows"`
	// Notes are sentences about the table that a reader must not miss:
	// a phase stopped early by --until-steady and why. The text writer
	// and the benchmarks' human views print them under the table.
	Notes []string `json:"notes,omitempty"`
	// Stragglers name, in a per-rank table, the rank (and host) that
	// ended a phase late enough to matter (StragglerLag and
	// StragglerMinLag). The archive keeps them; the human views leave
	// them off stdout, which keeps the C tools' layout, and the run says
	// them on stderr (Stragglers).
	Stragglers []string `json:"stragglers,omitempty"`
	// Dist names the kind of a distribution table (DistLatency,
	// DistSeries, DistRanks, DistHosts: see LatencyTable, SeriesTable and
	// RankTables); empty for the benchmark's own tables. The benchmarks'
	// own layouts skip distribution tables, and compare skips the
	// per-interval, per-rank and per-host ones (Table.Detail).
	Dist string `json:"dist,omitempty"`
}

// The kinds of distribution table.
const (
	DistLatency = "latency" // per-operation latency percentiles
	DistSeries  = "series"  // throughput per interval
	DistRanks   = "ranks"   // per-rank figures
	DistHosts   = "hosts"   // per-host figures
)

// Detail reports whether t holds per-interval, per-rank or per-host
// figures: kept to be read and plotted, left out of compare, whose rows
// must mean the same thing from run to run.
func (t *Table) Detail() bool {
	return t.Dist == DistSeries || t.Dist == DistRanks || t.Dist == DistHosts
}

// Column describes one column of a Table.
type Column struct {
	// Name is the column heading without its unit ("phase", "mean",
	// "t_avg", "bw"); the text and CSV writers append the unit.
	Name string `json:"name"`
	// Kind is KindLabel or KindMetric.
	Kind Kind `json:"kind"`
	// Unit is the unit metric values are stored in: "s", "B", "MiB/s",
	// "ops/s", ... or empty for a plain count. Store figures in the unit
	// they are measured in (seconds, bytes) and pick a Display unit for
	// people. Only for metric columns.
	Unit string `json:"unit,omitempty"`
	// Display is the unit the text writer shows values in, converted from
	// Unit: "ms" or "us" for a Unit of "s", "KiB" for "B", "GiB/s" for
	// "MiB/s". Empty means Unit. JSON and CSV always carry values in Unit.
	// See the package doc for the units that convert.
	Display string `json:"display,omitempty"`
	// Better says whether lower or higher values are an improvement.
	Better Better `json:"better,omitempty"`
	// Source names the entry of Row.Samples holding the raw figures this
	// column summarises, when several columns summarise the same figures
	// (min, mean and max of per-rank times all come from "rank"). Empty
	// means the column's own name. Only for metric columns.
	Source string `json:"source,omitempty"`
}

// Row is one row of a Table. Labels and Metrics are positional: Labels[i]
// belongs to the i-th label column and Metrics[j] to the j-th metric column,
// counted in Columns order.
type Row struct {
	// Labels has one string per label column.
	Labels []string
	// Metrics has one value per metric column, in that column's Unit.
	// NaN means "not measured" (a phase that did not run); it is written
	// as null in JSON, an empty cell in CSV and "-" in text. Infinities are
	// invalid.
	Metrics []float64
	// Samples optionally keeps the raw figures behind the metrics, keyed
	// by a metric column's Source (or its Name): per-rank times, per-
	// iteration bandwidths. They let a run be re-reported and compared
	// statistically later. Values are in that column's Unit; NaN is
	// allowed and means a missing figure.
	Samples map[string][]float64
}

// sampleKey returns the key of c's raw figures in Row.Samples.
func (c Column) sampleKey() string {
	if c.Source != "" {
		return c.Source
	}
	return c.Name
}

// split returns the label and metric columns of t, each in Columns order.
func (t *Table) split() (labels, metrics []Column) {
	for _, c := range t.Columns {
		if c.Kind == KindLabel {
			labels = append(labels, c)
		} else {
			metrics = append(metrics, c)
		}
	}
	return labels, metrics
}
