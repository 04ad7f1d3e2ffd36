package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteIORJSON writes r, built by the IOR conventions (see IORTableName),
// as the document IOR 4 writes with -O summaryFormat=JSON: the same keys,
// in IOR's order, with IOR's types (floats with 4 decimals), so tools that
// read IOR's JSON read hpcbench's. Unlike IOR's it is always one valid
// JSON document, and:
//
//   - it starts with "schema": IORSchema;
//   - "Version" is the hpcbench build (Run.Version);
//   - every element of "Results" has an "iter" (IOR's has none) and, when
//     the data was verified, "errors";
//   - a figure that was not measured is null, never 0; "Began", "Machine",
//     "Finished" and the capacity keys are null when unknown;
//   - summary elements always carry "StoneWallTime" and
//     "StoneWallbwMeanMIB" (null without stonewalling; IOR leaves them
//     out);
//   - "data packet type" is the letter the engine recorded, the real first
//     letter of the packet type ("t" for timestamp; IOR 4 prints "g").
//
// As in IOR, remove entries in "Results" and each test's "max" object
// appear only at verbosity 1 or more.
func WriteIORJSON(w io.Writer, r *Result) error {
	run, err := decodeIOR(r, iorNeeds{kinds: []string{IORHeader, IOROptions, IORParameters, IORResults}, summary: true})
	if err != nil {
		return err
	}
	doc := &jsonObject{}
	doc.add("schema", IORSchema)
	doc.add("Version", jsonStringOrNull(run.run.Version, run.run.Version != ""))
	doc.add("Began", jsonStringOrNull(IORTime(run.run.Start), !run.run.Start.IsZero()))
	doc.add("Command line", strings.Join(run.run.Command, " "))
	m, ok := run.run.Env[EnvMachine]
	doc.add("Machine", jsonStringOrNull(m, ok))
	tests := make(jsonArray, 0, len(run.tests))
	for i := range run.tests {
		tests = append(tests, iorTestJSON(&run.tests[i]))
	}
	doc.add("tests", tests)
	summary := make(jsonArray, 0, len(run.summary))
	for i := range run.summary {
		summary = append(summary, iorSummaryJSON(&run.summary[i]))
	}
	doc.add("summary", summary)
	doc.add("Finished", jsonStringOrNull(IORTime(run.run.End), !run.run.End.IsZero()))

	var b bytes.Buffer
	if err := writeJSONValue(&b, doc, 0); err != nil {
		return fmt.Errorf("report: encoding IOR JSON: %w", err)
	}
	b.WriteByte('\n')
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing IOR JSON: %w", err)
	}
	return nil
}

// iorTestJSON returns one element of "tests".
func iorTestJSON(test *iorTest) *jsonObject {
	o := &jsonObject{}
	o.add("TestID", jsonInt(test.testID))
	o.add("StartTime", test.startTime())
	o.add("Path", test.header[IORPath])
	for _, k := range []string{IORCapacity, IORUsedCapacity, IORInodes, IORUsedInodes} {
		v, ok := test.header[k]
		o.add(k, jsonStringOrNull(v, ok))
	}
	o.add("Parameters", iorSettingsJSON(test.params))
	o.add("Options", iorSettingsJSON(test.options))
	results := jsonArray{}
	for _, p := range test.results {
		if p.access == IORRemove {
			if test.verbose < 1 {
				continue
			}
			e := &jsonObject{}
			e.add("access", p.access)
			e.add("iter", jsonInt(p.iter))
			e.add("totalTime", jsonFloat4(p.total))
			results = append(results, e)
			continue
		}
		e := &jsonObject{}
		e.add("access", p.access)
		e.add("iter", jsonInt(p.iter))
		e.add("bwMiB", jsonFloat4(p.bw))
		e.add("blockKiB", jsonFloat4(p.blockKiB))
		e.add("xferKiB", jsonFloat4(p.xferKiB))
		e.add("iops", jsonFloat4(p.iops))
		e.add("latency", jsonFloat4(p.latency))
		e.add("openTime", jsonFloat4(p.open))
		e.add("wrRdTime", jsonFloat4(p.wrrd))
		e.add("closeTime", jsonFloat4(p.close))
		e.add("totalTime", jsonFloat4(p.total))
		if !math.IsNaN(p.errors) {
			e.add("errors", jsonInt(int64(p.errors)))
		}
		results = append(results, e)
	}
	o.add("Results", results)
	if test.verbose >= 1 {
		mx := &jsonObject{}
		if bw, ok := test.maxBW(IORWrite); ok {
			mx.add("writeMiB", jsonFloat4(bw))
			mx.add("writeMB", jsonFloat4(bw*mebibytesPerMB))
		}
		if bw, ok := test.maxBW(IORRead); ok {
			mx.add("readMiB", jsonFloat4(bw))
			mx.add("readMB", jsonFloat4(bw*mebibytesPerMB))
		}
		o.add("max", mx)
	}
	return o
}

// iorSettingsJSON returns options or parameters as an object.
func iorSettingsJSON(settings []iorSetting) *jsonObject {
	o := &jsonObject{}
	for _, s := range settings {
		if s.isInt {
			o.add(s.name, jsonNumber(s.value))
		} else {
			o.add(s.name, s.value)
		}
	}
	return o
}

// iorSummaryJSON returns one element of "summary", keys in IOR's order.
func iorSummaryJSON(s *iorSummaryRow) *jsonObject {
	o := &jsonObject{}
	n := s.ints
	o.add("operation", s.operation)
	o.add("API", s.api)
	for _, kv := range []struct {
		key string
		i   int
	}{
		{"TestID", iorSumTest}, {"ReferenceNumber", iorSumRefNum}, {"segmentCount", iorSumSegments},
		{"blockSize", iorSumBlock}, {"transferSize", iorSumXfer}, {"numTasks", iorSumTasks},
		{"tasksPerNode", iorSumTPN}, {"repetitions", iorSumReps}, {"filePerProc", iorSumFPP},
		{"reorderTasks", iorSumReord}, {"taskPerNodeOffset", iorSumReordOff},
		{"reorderTasksRandom", iorSumReordRand}, {"reorderTasksRandomSeed", iorSumSeed},
	} {
		o.add(kv.key, jsonInt(n[kv.i]))
	}
	for i, key := range []string{"bwMaxMIB", "bwMinMIB", "bwMeanMIB", "bwStdMIB", "OPsMax", "OPsMin", "OPsMean", "OPsSD",
		"MeanTime", "StoneWallTime", "StoneWallbwMeanMIB", "xsizeMiB"} {
		o.add(key, jsonFloat4(s.m[i]))
	}
	return o
}

// jsonObject is a JSON object that keeps its keys in insertion order,
// which encoding/json's maps do not. Values are string, jsonNumber,
// *jsonObject or jsonArray.
type jsonObject struct {
	keys []string
	vals []any
}

// add appends key with value v.
func (o *jsonObject) add(key string, v any) {
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// jsonArray is a JSON array of the values jsonObject holds.
type jsonArray []any

// jsonNumber is a literal written as it is: a number or null.
type jsonNumber string

// jsonNull is JSON's null.
const jsonNull jsonNumber = "null"

// jsonInt returns n as a JSON number.
func jsonInt(n int64) jsonNumber { return jsonNumber(strconv.FormatInt(n, 10)) }

// jsonFloat4 returns v with 4 decimals as IOR prints its floats, or null
// for NaN (not measured).
func jsonFloat4(v float64) jsonNumber {
	if math.IsNaN(v) {
		return jsonNull
	}
	return jsonNumber(strconv.FormatFloat(v, 'f', 4, 64))
}

// jsonStringOrNull returns s, or null when ok is false.
func jsonStringOrNull(s string, ok bool) any {
	if !ok {
		return jsonNull
	}
	return s
}

// writeJSONValue writes v indented by two spaces per level, the first line
// at the current position.
func writeJSONValue(b *bytes.Buffer, v any, depth int) error {
	pad := func(d int) { b.WriteString(strings.Repeat("  ", d)) }
	switch v := v.(type) {
	case string:
		s, err := marshal(v, "")
		if err != nil {
			return err
		}
		b.Write(s)
	case jsonNumber:
		b.WriteString(string(v))
	case *jsonObject:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			pad(depth + 1)
			if err := writeJSONValue(b, k, depth+1); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := writeJSONValue(b, v.vals[i], depth+1); err != nil {
				return err
			}
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(depth)
		b.WriteByte('}')
	case jsonArray:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, e := range v {
			pad(depth + 1)
			if err := writeJSONValue(b, e, depth+1); err != nil {
				return err
			}
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(depth)
		b.WriteByte(']')
	default:
		return fmt.Errorf("unsupported JSON value %T", v)
	}
	return nil
}
