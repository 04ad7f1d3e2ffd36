package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conventions between the IMB engine (internal/imb) and WriteIMB. The
// renderer reads only the Result, so these names are the whole contract.
const (
	// IMBParamBenchmarks is the Param listing the benchmarks asked for,
	// space-separated, in order: IMB's "List of Benchmarks to run".
	IMBParamBenchmarks = "benchmarks"
	// IMBParamMsglen is the Param present when the message sizes came from
	// a -msglen file: IMB then says "Message lengths were user defined".
	IMBParamMsglen = "msglen"
	// EnvOversubscribed is the Run.Env key present when a host runs more
	// ranks than it has CPUs; its value reads "4 ranks / 2 CPUs".
	EnvOversubscribed = "oversubscribed"
)

// imbWidth is IMB's ow_format: every table field is 13 characters wide.
const imbWidth = 13

// IMBTableName returns the name of the table holding benchmark bench run
// on np processes: "Allreduce np=4". WriteIMB takes the benchmark and the
// process count of each block from it.
func IMBTableName(bench string, np int) string {
	return bench + " np=" + strconv.Itoa(np)
}

// ParseIMBTableName splits a name made by IMBTableName.
func ParseIMBTableName(name string) (bench string, np int, ok bool) {
	bench, n, ok := strings.Cut(name, " np=")
	if !ok || bench == "" {
		return "", 0, false
	}
	np, err := strconv.Atoi(n)
	if err != nil || np < 1 || strconv.Itoa(np) != n {
		return "", 0, false
	}
	return bench, np, true
}

// WriteIMB writes r in the layout of Intel(R) MPI Benchmarks' IMB-MPI1, so
// that tools which parse IMB output read hpcbench's: a header block of "#"
// lines (a banner naming hpcbench, date, machine, hosts, ranks, transport,
// "# oversubscribed: …" when so, the calling sequence, the message lengths,
// the datatypes and the list of benchmarks), then per table the
// "# Benchmarking X" block, with "( K additional processes waiting in
// MPI_Barrier)" when ranks were idle, and the table in IMB's fixed-width
// columns: 13 characters, right-aligned, integers for #bytes and
// #repetitions, two decimals for times in microseconds and Mbytes/sec. It
// ends with "# All processes entering MPI_Finalize". Lines that IMB ends
// with a space keep it.
//
// Every table must be named by IMBTableName and hold IMB's columns, stored
// as the engine stores them: label "#bytes" (absent for Barrier), metrics
// "#repetitions", then "t" (PingPong, PingPing) or "t_min", "t_max" and
// "t_avg" (times), "Mbytes/sec" (MB/s) for PingPong, PingPing, Sendrecv and
// Exchange, and "defects" when data was checked. The column set picks IMB's
// table type. Anything else is an error, and nothing is written.
func WriteIMB(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	var b bytes.Buffer
	writeIMBHeader(&b, r)
	var checked, failed []string
	for i := range r.Tables {
		t := &r.Tables[i]
		if t.Dist != "" {
			continue // not a table of IMB's
		}
		defects, err := writeIMBTable(&b, r, t)
		if err != nil {
			return fmt.Errorf("report: rendering table %q as IMB: %w", t.Name, err)
		}
		if defects >= 0 {
			bench, _, _ := ParseIMBTableName(t.Name)
			if !slices.Contains(checked, bench) {
				checked = append(checked, bench)
			}
			if defects > 0 && !slices.Contains(failed, bench) {
				failed = append(failed, bench)
			}
		}
	}
	writeIMBSkipped(&b, r)
	writeIMBCheckSummary(&b, checked, failed)
	writeNotes(&b, r)
	b.WriteString("\n\n# All processes entering MPI_Finalize\n\n")
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing IMB output: %w", err)
	}
	return nil
}

// IMBSkippedParam is the parameter under which coll records a benchmark
// it did not run and why ("PingPong needs at least 2 ranks; this job has
// 1: not run"); WriteIMB prints each as IMB_valid prints a benchmark that
// is invalid for the process count.
const IMBSkippedParam = "skipped"

// writeIMBSkipped writes the IMBSkippedParam parameters of r, one
// "# !! ... !!" line each, as IMB says "# !! Benchmark PingPong invalid
// for 1 processes !!".
func writeIMBSkipped(b *bytes.Buffer, r *Result) {
	for _, p := range r.Params {
		if p.Name == IMBSkippedParam {
			fmt.Fprintf(b, "\n# !! %s !!\n", printable(p.Value))
		}
	}
}

// writeIMBHeader writes IMB_show_selections' block.
func writeIMBHeader(b *bytes.Buffer, r *Result) {
	run := &r.Run
	line := "#" + strings.Repeat("-", 64) + "\n"
	b.WriteString(line)
	banner := "hpcbench"
	if run.Version != "" {
		banner = run.Version
		if !strings.HasPrefix(banner, "hpcbench") {
			banner = "hpcbench " + banner
		}
	}
	fmt.Fprintf(b, "#    %s, IMB-MPI1 compatible part\n", printable(banner))
	b.WriteString(line)
	kv := func(k, v string) { fmt.Fprintf(b, "# %-22s: %s\n", k, printable(v)) }
	if !run.Start.IsZero() {
		kv("Date", run.Start.Format(time.ANSIC))
	}
	env := run.Env
	if v, ok := env["machine"]; ok {
		kv("Machine", v)
	}
	if v, ok := env["system"]; ok {
		kv("System", v)
	}
	if run.Hosts > 0 || len(run.Hostnames) > 0 {
		kv("Hosts", hostsLine(run.Hosts, run.Hostnames))
	}
	if run.Ranks > 0 {
		kv("Ranks", strconv.Itoa(run.Ranks))
	}
	if v, ok := env["transport"]; ok {
		kv("Transport", v)
	}
	if v, ok := env[EnvOversubscribed]; ok {
		fmt.Fprintf(b, "# oversubscribed: %s\n", printable(v))
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		switch k {
		case "machine", "system", "transport", EnvOversubscribed:
		default:
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv(k, env[k])
	}

	b.WriteString("\n\n# Calling sequence was: \n\n")
	fmt.Fprintf(b, "# %s\n\n", printable(commandLine(run.Command)))
	if imbParam(r, IMBParamMsglen) != "" {
		b.WriteString("# Message lengths were user defined\n")
	} else {
		lo, hi := imbSizeRange(r)
		fmt.Fprintf(b, "# Minimum message length in bytes:   %d\n", lo)
		fmt.Fprintf(b, "# Maximum message length in bytes:   %d\n", hi)
	}
	b.WriteString("#\n")
	b.WriteString("# MPI_Datatype                   :   MPI_BYTE \n")
	b.WriteString("# MPI_Datatype for reductions    :   MPI_FLOAT\n")
	b.WriteString("# MPI_Op                         :   MPI_SUM  \n")
	b.WriteString("#\n#\n")

	b.WriteString("\n# List of Benchmarks to run:\n\n")
	for _, name := range imbBenchmarks(r) {
		fmt.Fprintf(b, "# %s\n", printable(name))
	}
}

// imbParam returns the value of the named Param, or "".
func imbParam(r *Result, name string) string {
	for _, p := range r.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// imbBenchmarks lists the benchmarks: the IMBParamBenchmarks Param, else
// the benchmarks of the tables in order.
func imbBenchmarks(r *Result) []string {
	if v := imbParam(r, IMBParamBenchmarks); v != "" {
		return strings.Fields(v)
	}
	var names []string
	for _, t := range r.Tables {
		if bench, _, ok := ParseIMBTableName(t.Name); ok && !slices.Contains(names, bench) {
			names = append(names, bench)
		}
	}
	return names
}

// imbSizeRange returns the smallest and largest #bytes of any row.
func imbSizeRange(r *Result) (lo, hi int64) {
	first := true
	for i := range r.Tables {
		t := &r.Tables[i]
		li := labelIndex(t, "#bytes")
		if li < 0 {
			continue
		}
		for _, row := range t.Rows {
			n, err := strconv.ParseInt(row.Labels[li], 10, 64)
			if err != nil {
				continue
			}
			if first || n < lo {
				lo = n
			}
			if first || n > hi {
				hi = n
			}
			first = false
		}
	}
	return lo, hi
}

// labelIndex returns the position of the label column name among t's label
// columns, or -1.
func labelIndex(t *Table, name string) int {
	labels, _ := t.split()
	for i, c := range labels {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// imbField is one column of an IMB table: its heading and how to print a
// row's value.
type imbField struct {
	head  string
	label int     // index among label columns, or -1 for a metric
	value int     // index among metric columns
	scale float64 // stored unit to the printed one
	whole bool    // printed as an integer
}

// imbLayout returns the columns IMB prints for t, by IMB's table type:
// single transfer (a "t" column), sync (no "#bytes"), parallel transfer
// (with "Mbytes/sec") or collective; "defects" last when present.
func imbLayout(t *Table) ([]imbField, error) {
	_, metrics := t.split()
	metric := func(name, head, unit string, whole bool) (imbField, error) {
		for i, c := range metrics {
			if c.Name != name {
				continue
			}
			scale := 1.0
			if unit != "" {
				var ok bool
				if scale, ok = displayScale(c.Unit, unit); !ok {
					return imbField{}, fmt.Errorf("column %q: unit %q does not convert to %s", name, c.Unit, unit)
				}
			}
			return imbField{head: head, label: -1, value: i, scale: scale, whole: whole}, nil
		}
		return imbField{}, fmt.Errorf("no column %q", name)
	}
	has := func(name string) bool {
		return slices.ContainsFunc(metrics, func(c Column) bool { return c.Name == name })
	}
	type want struct {
		name, head, unit string
		whole            bool
	}
	reps := want{"#repetitions", "#repetitions", "", true}
	tmin := want{"t_min", "t_min[usec]", "us", false}
	tmax := want{"t_max", "t_max[usec]", "us", false}
	tavg := want{"t_avg", "t_avg[usec]", "us", false}
	bw := want{"Mbytes/sec", "Mbytes/sec", "MB/s", false}
	bytesCol := labelIndex(t, "#bytes")
	var wants []want
	switch {
	case has("t"):
		wants = []want{reps, {"t", "t[usec]", "us", false}, bw}
	case bytesCol < 0:
		wants = []want{reps, tmin, tmax, tavg}
	case has("Mbytes/sec"):
		wants = []want{reps, tmin, tmax, tavg, bw}
	default:
		wants = []want{reps, tmin, tmax, tavg}
	}
	if has("defects") {
		wants = append(wants, want{"defects", "defects", "", false})
	}
	var fields []imbField
	if bytesCol >= 0 {
		fields = append(fields, imbField{head: "#bytes", label: bytesCol})
	}
	for _, w := range wants {
		f, err := metric(w.name, w.head, w.unit, w.whole)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// writeIMBTable writes one "# Benchmarking" block and its table, as
// IMB_print_header and IMB_display_times do. It returns the table's total
// of defects, or -1 when the table has no defects column.
func writeIMBTable(b *bytes.Buffer, r *Result, t *Table) (int, error) {
	bench, np, ok := ParseIMBTableName(t.Name)
	if !ok {
		return 0, fmt.Errorf("name is not \"BENCHMARK np=N\"")
	}
	fields, err := imbLayout(t)
	if err != nil {
		return 0, err
	}
	line := "#" + strings.Repeat("-", len(fields)*imbWidth-1) + "\n"
	b.WriteString("\n")
	b.WriteString(line)
	fmt.Fprintf(b, "# Benchmarking %s \n", printable(bench))
	fmt.Fprintf(b, "# #processes = %d \n", np)
	if idle := r.Run.Ranks - np; idle == 1 {
		b.WriteString("# ( 1 additional process waiting in MPI_Barrier)\n")
	} else if idle > 1 {
		fmt.Fprintf(b, "# ( %d additional processes waiting in MPI_Barrier)\n", idle)
	}
	b.WriteString(line)
	for _, f := range fields {
		fmt.Fprintf(b, "%*s", imbWidth, f.head)
	}
	b.WriteString("\n")
	defects := -1
	for _, row := range t.Rows {
		for _, f := range fields {
			if f.label >= 0 {
				fmt.Fprintf(b, "%*s", imbWidth, printable(row.Labels[f.label]))
				continue
			}
			v := row.Metrics[f.value] * f.scale
			switch {
			case math.IsNaN(v):
				fmt.Fprintf(b, "%*s", imbWidth, "-")
			case f.whole:
				fmt.Fprintf(b, "%*d", imbWidth, int64(v))
			default:
				fmt.Fprintf(b, "%*.2f", imbWidth, v)
			}
			if f.head == "defects" && !math.IsNaN(v) {
				defects = max(defects, 0) + int(v)
			}
		}
		b.WriteString("\n")
	}
	return defects, nil
}

// writeIMBCheckSummary writes what IMB's CHECK build prints at the end: all
// successful, or how many benchmarks failed and which.
func writeIMBCheckSummary(b *bytes.Buffer, checked, failed []string) {
	if len(checked) == 0 {
		return
	}
	switch len(failed) {
	case 0:
		b.WriteString("\n\n!!!!  ALL BENCHMARKS SUCCESSFUL !!!! \n\n")
		return
	case 1:
		b.WriteString("\n\n!!!!  1  BENCHMARK FAILED     !!!! \n\n")
	default:
		fmt.Fprintf(b, "\n\n!!!!  %d  BENCHMARKS FAILED     !!!! \n\n", len(failed))
	}
	for _, name := range checked {
		if slices.Contains(failed, name) {
			fmt.Fprintf(b, "%s    : FAILED !! \n", printable(name))
		} else {
			fmt.Fprintf(b, "%s    : Successful\n", printable(name))
		}
	}
}
