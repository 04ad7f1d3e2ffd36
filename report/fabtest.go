package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Conventions between the fabric engine (internal/fabtest) and
// WriteFabtests: the column names of a fabric test's table. The renderer
// reads only the Result, so these names are the whole contract.
const (
	FabBytes   = "bytes"      // label: the transfer size in bytes
	FabSent    = "sent"       // timed messages sent (#sent)
	FabAcked   = "acked"      // timed messages the peer received (#ack)
	FabXfers   = "xfers"      // transfers the time is divided by
	FabTotal   = "total"      // bytes moved, unit B
	FabTime    = "time"       // seconds of the timed run, unit s
	FabMBps    = "MB/sec"     // unit MB/s (10^6 B/s)
	FabUsec    = "usec/xfer"  // unit s, shown in us
	FabMxfers  = "Mxfers/sec" // transfers per microsecond
	FabP50     = "p50"        // unit s, shown in us
	FabP99     = "p99"        // unit s, shown in us
	FabMax     = "max"        // unit s, shown in us
	FabMinMBps = "min MB/sec" // duration mode: the least interval's bandwidth, unit MB/s; NaN otherwise
	FabDefects = "defects"    // messages that failed the data check
	FabEnvTest = "test"       // Run.Env: the test, "pingpong" or "bw"
	FabEnvRole = "role"       // Run.Env: "client", "server" or "launched"
	FabEnvProv = "provider"   // Run.Env: the provider, as -p names it
)

// WriteFabtests writes every table of r in the layout libfabric's
// fi_pingpong prints, so that scripts written for it read hpcbench's:
//
//	bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
//	64      1k      =1k      125k        0.01s     10.01       6.39       0.16
//
// with fabtests' own abbreviations (sizes with binary suffixes and one
// decimal below 10, counts with decimal suffixes truncated, #ack as "="
// and the count when all arrived, else the difference), followed by the
// percentiles of one transfer's time in microseconds (p50, p99, max) and,
// in duration mode, the least bandwidth of a reporting interval. The
// tables' notes follow under "Notes:", as the other layouts have them.
func WriteFabtests(w io.Writer, r *Result) error {
	var b bytes.Buffer
	for i := range r.Tables {
		t := &r.Tables[i]
		if t.Dist != "" {
			continue
		}
		if err := writeFabTable(&b, t); err != nil {
			return err
		}
	}
	writeNotes(&b, r)
	_, err := w.Write(b.Bytes())
	return err
}

// writeFabTable writes one table.
func writeFabTable(b *bytes.Buffer, t *Table) error {
	col := map[string]int{}
	li, mi := 0, 0
	for _, c := range t.Columns {
		if c.Kind == KindLabel {
			col[c.Name] = li
			li++
		} else {
			col[c.Name] = mi
			mi++
		}
	}
	for _, n := range []string{FabBytes, FabSent, FabAcked, FabTotal, FabTime, FabMBps, FabUsec, FabMxfers, FabP50, FabP99, FabMax} {
		if _, ok := col[n]; !ok {
			return fmt.Errorf("report: fabric table %q: no %q column", t.Name, n)
		}
	}
	minCol, duration := col[FabMinMBps]
	if duration {
		duration = false
		for _, row := range t.Rows {
			if !math.IsNaN(row.Metrics[minCol]) {
				duration = true
			}
		}
	}
	fmt.Fprintf(b, "%-8s%-8s%-9s%-8s%8s %10s%13s%13s%11s%11s%11s", "bytes", "#sent", "#ack", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec", "p50 usec", "p99 usec", "max usec")
	if duration {
		fmt.Fprintf(b, "%13s", "min MB/sec")
	}
	b.WriteByte('\n')
	for _, row := range t.Rows {
		m := func(n string) float64 { return row.Metrics[col[n]] }
		size, err := strconv.ParseInt(row.Labels[col[FabBytes]], 10, 64)
		if err != nil {
			return fmt.Errorf("report: fabric table %q: bytes %q: %w", t.Name, row.Labels[col[FabBytes]], err)
		}
		sent, acked := int64(m(FabSent)), int64(m(FabAcked))
		ack := "=" + fabCount(acked)
		if acked != sent {
			ack = fmt.Sprintf("%+d", acked-sent)
		}
		fmt.Fprintf(b, "%-8s%-8s%-9s%-8s%8.2fs%10.2f%11.2f%11.2f%11.2f%11.2f%11.2f",
			fabSize(size), fabCount(sent), ack, fabSize(int64(m(FabTotal))), m(FabTime), m(FabMBps),
			m(FabUsec)*1e6, m(FabMxfers), m(FabP50)*1e6, m(FabP99)*1e6, m(FabMax)*1e6)
		if v := m(FabMinMBps); duration && math.IsNaN(v) {
			fmt.Fprintf(b, "%13s", "-")
		} else if duration {
			fmt.Fprintf(b, "%13.2f", v)
		}
		b.WriteByte('\n')
	}
	return nil
}

// fabSize is fabtests' size_str: a binary suffix (k, m, g), one decimal
// when the whole part is below 10 and the tenth is not zero.
func fabSize(n int64) string {
	base, mag := int64(1), ""
	switch {
	case n >= 1<<30:
		base, mag = 1<<30, "g"
	case n >= 1<<20:
		base, mag = 1<<20, "m"
	case n >= 1<<10:
		base, mag = 1<<10, "k"
	}
	whole, tenth := n/base, n%base*10/base
	if whole < 10 && tenth != 0 {
		return fmt.Sprintf("%d.%d%s", whole, tenth, mag)
	}
	return fmt.Sprintf("%d%s", whole, mag)
}

// fabCount is fabtests' cnt_str: a decimal suffix (k, m, b), truncated.
func fabCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%db", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%dm", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%dk", n/1e3)
	}
	return strconv.FormatInt(n, 10)
}
