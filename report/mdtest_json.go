package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// WriteMdtestJSON writes r, built by the mdtest conventions (see
// MdtestHeaderTable), as one JSON document: the summary that mdtest lacks
// (hpc/ior issues #126 and #509), in the family of WriteIORJSON. Keys, in
// this order:
//
//	schema        MdtestSchema
//	version       the hpcbench build, or null
//	began         Run.Start in RFC 3339, or null
//	finished      Run.End in RFC 3339, or null
//	command line  as mdtest's "Command line used:" (arguments quoted)
//	machine       Env[EnvMachine], or null
//	tasks, nodes  numbers: the tasks of the test, Run.Hosts
//	nodemap       "11", or null
//	iterations    the number of iterations (-i)
//	path          the test directory
//	fs            {capacity, usedCapacity, inodes, usedInodes} (strings as
//	              mdtest's FS line), or null when statfs failed
//	items         {total, perRank, kind}: kind is "files", "directories" or
//	              "files/directories"
//	warnings      [strings]: mdtest's WARNING lines
//	summary       one object per operation of the rate table, in mdtest's
//	              order (Directory read included when measured):
//	              operation; unit "ops/s", max, min, mean, stddev (over
//	              the iterations), rankMax, rankMin, rankMean (over every
//	              rank's rate before the barrier); timeUnit "s", timeMax,
//	              timeMin, timeMean, timeStddev, timeRankMax, timeRankMin,
//	              timeRankMean: the same for the phase's duration in
//	              seconds (mdtest's "SUMMARY time (in ms/op)" figures)
//	results       one object per operation per iteration, from the ranks
//	              table's MdtestAllRanks rows in table order: iter
//	              (0-based), operation, rate (ops/s), time (s), items
//	errors        one object per phase with failures: phase, count, op,
//	              path, error (the first failure; op, path and error as
//	              Go's *fs.PathError)
//
// Figures are numbers in shortest round-trip form; a figure not measured
// (a phase that did not run, per-rank statistics not computed) is null,
// never 0. The iteration count is "iterations", so the per-iteration
// figures are "results", as IOR's JSON names its per-iteration rows.
func WriteMdtestJSON(w io.Writer, r *Result) error {
	return WriteMdtestSweepJSON(w, []*Result{r})
}

// WriteMdtestSweepJSON writes the Results of an mdtest -f/-l/-s sweep, one
// per number of tasks in order: one Result as WriteMdtestJSON's document,
// several as a JSON array of such documents (each with its own "tasks").
// Anything a Result lacks is an error, and nothing is written.
func WriteMdtestSweepJSON(w io.Writer, rs []*Result) error {
	if len(rs) == 0 {
		return fmt.Errorf("report: mdtest sweep: no results")
	}
	docs := jsonArray{}
	for i, r := range rs {
		doc, err := mdtestJSONDoc(r)
		if err != nil {
			if len(rs) > 1 {
				return fmt.Errorf("report: mdtest sweep, run %d of %d: %w", i+1, len(rs), err)
			}
			return err
		}
		docs = append(docs, doc)
	}
	var v any = docs
	if len(docs) == 1 {
		v = docs[0]
	}
	var b bytes.Buffer
	if err := writeJSONValue(&b, v, 0); err != nil {
		return fmt.Errorf("report: encoding mdtest JSON: %w", err)
	}
	b.WriteByte('\n')
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing mdtest JSON: %w", err)
	}
	return nil
}

// mdtestJSONDoc returns WriteMdtestJSON's document of r.
func mdtestJSONDoc(r *Result) (*jsonObject, error) {
	run, err := decodeMdtest(r, mdtestNeeds{header: true, summary: true, ranks: true})
	if err != nil {
		return nil, err
	}
	h := &run.header
	doc := &jsonObject{}
	doc.add("schema", MdtestSchema)
	doc.add("version", jsonStringOrNull(run.run.Version, run.run.Version != ""))
	doc.add("began", jsonStringOrNull(run.run.Start.Format(time.RFC3339), !run.run.Start.IsZero()))
	doc.add("finished", jsonStringOrNull(run.run.End.Format(time.RFC3339), !run.run.End.IsZero()))
	doc.add("command line", mdtestCommandLine(run.run.Command))
	m, ok := run.run.Env[EnvMachine]
	doc.add("machine", jsonStringOrNull(m, ok))
	doc.add("tasks", jsonInt(h.tasks))
	doc.add("nodes", jsonInt(int64(run.run.Hosts)))
	doc.add("nodemap", jsonStringOrNull(h.nodemap, h.nodemap != ""))
	doc.add("iterations", jsonInt(h.iterations))
	doc.add("path", h.path)
	if h.hasFS {
		fs := &jsonObject{}
		fs.add("capacity", h.capacity)
		fs.add("usedCapacity", h.usedCapacity)
		fs.add("inodes", h.inodes)
		fs.add("usedInodes", h.usedInodes)
		doc.add("fs", fs)
	} else {
		doc.add("fs", jsonNull)
	}
	items := &jsonObject{}
	items.add("total", jsonInt(h.items))
	items.add("perRank", jsonInt(h.itemsPerRank))
	items.add("kind", h.itemKind)
	doc.add("items", items)
	warnings := jsonArray{}
	for _, s := range h.warnings {
		warnings = append(warnings, s)
	}
	doc.add("warnings", warnings)

	summary := jsonArray{}
	keys := []string{"max", "min", "mean", "stddev", "rankMax", "rankMin", "rankMean"}
	timeKeys := []string{"timeMax", "timeMin", "timeMean", "timeStddev", "timeRankMax", "timeRankMin", "timeRankMean"}
	for i, s := range run.rate {
		o := &jsonObject{}
		o.add("operation", s.op)
		o.add("unit", "ops/s")
		for j, k := range keys {
			o.add(k, jsonFloat(s.m[j]))
		}
		o.add("timeUnit", "s")
		for j, k := range timeKeys {
			o.add(k, jsonFloat(run.time[i].m[j]))
		}
		summary = append(summary, o)
	}
	doc.add("summary", summary)

	results := jsonArray{}
	for _, k := range run.ranks {
		if k.rank >= 0 {
			continue
		}
		o := &jsonObject{}
		o.add("iter", jsonInt(k.iter))
		o.add("operation", k.op)
		o.add("rate", jsonFloat(k.rate))
		o.add("time", jsonFloat(k.time))
		o.add("items", jsonFloat(k.items))
		results = append(results, o)
	}
	doc.add("results", results)

	errs := jsonArray{}
	for _, e := range run.errors {
		o := &jsonObject{}
		o.add("phase", e.phase)
		o.add("count", jsonFloat(e.count))
		o.add("op", e.op)
		o.add("path", e.path)
		o.add("error", e.err)
		errs = append(errs, o)
	}
	doc.add("errors", errs)
	return doc, nil
}

// jsonFloat returns v in the shortest form that reads back as v, without
// an exponent, or null for NaN (not measured).
func jsonFloat(v float64) jsonNumber {
	if math.IsNaN(v) {
		return jsonNull
	}
	return jsonNumber(strconv.FormatFloat(v, 'f', -1, 64))
}
