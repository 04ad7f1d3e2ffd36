package report

import "time"

// Schema names the version of the result model that WriteJSON writes and
// ReadJSON accepts. Within one schema, fields are only ever added; a change
// that would make an old reader misread a file gets a new schema name.
const Schema = "hpcbench/1"

// Result is everything one benchmark run reports: what ran, with which
// parameters, and its tables of figures. Benchmarks build one; the writers
// (WriteText, WriteJSON, WriteCSV) render it and never change it.
type Result struct {
	// Schema is the model version, Schema for a result built by this
	// package. The writers accept an empty Schema as the current one and
	// reject any other value; ReadJSON sets it.
	Schema string `json:"schema"`
	// Run describes the run itself: what, when, where, how many ranks.
	Run Run `json:"run"`
	// Params echoes the benchmark's options, in the order the benchmark
	// wants them shown (IOR's "Options:" block).
	Params []Param `json:"params,omitempty"`
	// Tables holds the figures, in display order. Table names are unique.
	Tables []Table `json:"tables"`
}

// New returns an empty Result for the named benchmark with Schema set.
func New(benchmark string) *Result {
	return &Result{Schema: Schema, Run: Run{Benchmark: benchmark}}
}

// Run is the metadata of one benchmark run.
type Run struct {
	// Benchmark names what ran, such as "wireup", "ior" or "imb-pingpong".
	// It is required.
	Benchmark string `json:"benchmark"`
	// Command is the command line as typed, argv[0] first.
	Command []string `json:"command,omitempty"`
	// Version is the hpcbench build that ran, as internal/version reports it.
	Version string `json:"version,omitempty"`
	// Hostnames lists the distinct hosts that ran ranks, in rank order of
	// first appearance.
	Hostnames []string `json:"hostnames,omitempty"`
	// Ranks is the number of ranks (processes) in the job.
	Ranks int `json:"ranks"`
	// Hosts is the number of hosts (nodes) in the job.
	Hosts int `json:"hosts"`
	// Start and End bound the measured run. Zero values are omitted from
	// the JSON and the text header.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Env holds free-form facts about the environment that shaped the run:
	// "launcher", "transport", "backend", "pmi", CPU model and so on.
	// Writers list the keys in sorted order.
	Env map[string]string `json:"env,omitempty"`
}

// Param is one echoed option: a name and its value as the user would write
// it ("blocksize", "256 MiB").
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Incidental marks a parameter that says where or how the run was
	// recorded rather than what it measured: a test file's or
	// directory's name, the host in IOR's platform, the interval of the
	// time series. Compare does not require it to match between runs.
	Incidental bool `json:"incidental,omitempty"`
}
