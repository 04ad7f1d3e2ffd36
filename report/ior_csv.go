package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteIORCSV writes the results of r, built by the IOR conventions (see
// IORTableName), as IOR 4 does with -O summaryFormat=CSV: the header
// "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter",
// then one record per write or read phase per iteration, every test in
// order, figures with 4 decimals, numTasks and iter as integers. As in
// IOR there is no header block, no options, no summary and no remove
// rows. A figure not measured is an empty cell. The header is written
// once even when several tests ran; iter starts again from 0 at each test.
func WriteIORCSV(w io.Writer, r *Result) error {
	run, err := decodeIOR(r, iorNeeds{kinds: []string{IORResults}})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"access", "bw(MiB/s)", "IOPS", "Latency", "block(KiB)", "xfer(KiB)",
		"open(s)", "wr/rd(s)", "close(s)", "total(s)", "numTasks", "iter"})
	f4 := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	for _, test := range run.tests {
		for _, p := range test.results {
			if p.access == IORRemove {
				continue
			}
			tasks := ""
			if !math.IsNaN(p.tasks) {
				tasks = strconv.FormatInt(int64(p.tasks), 10)
			}
			_ = cw.Write([]string{p.access, f4(p.bw), f4(p.iops), f4(p.latency), f4(p.blockKiB), f4(p.xferKiB),
				f4(p.open), f4(p.wrrd), f4(p.close), f4(p.total), tasks, strconv.FormatInt(p.iter, 10)})
		}
	}
	return flushIORCSV(w, cw, &b)
}

// WriteIORRankCSV writes the per-rank figures of r, built by the IOR
// conventions (every test needs its IORRanks table), as the file IOR 4
// writes with -O saveRankPerformanceDetailsCSV=FILE: the header
// "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput",
// then one record per rank per phase per iteration, every test in order,
// times in seconds and throughputs in bytes/s, in C's %.10e format. A
// figure not measured is an empty cell.
func WriteIORRankCSV(w io.Writer, r *Result) error {
	run, err := decodeIOR(r, iorNeeds{kinds: []string{IORRanks}})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write([]string{"access", "rank", "runtime-with-openclose", "runtime", "throughput-withopenclose", "throughput"})
	e10 := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.10e", v)
	}
	for _, test := range run.tests {
		for _, k := range test.ranks {
			_ = cw.Write([]string{k.access, k.rank, e10(k.runtimeOC), e10(k.runtime), e10(k.tputOC), e10(k.tput)})
		}
	}
	return flushIORCSV(w, cw, &b)
}

// flushIORCSV finishes cw, which writes to b, and copies b to w. A failed
// cw.Write is sticky: cw.Error reports it here.
func flushIORCSV(w io.Writer, cw *csv.Writer, b *bytes.Buffer) error {
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: writing IOR CSV: %w", err)
	}
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing IOR CSV: %w", err)
	}
	return nil
}
