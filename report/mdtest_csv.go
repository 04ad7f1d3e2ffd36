package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// WriteMdtestCSV writes the summary of r, built by the mdtest conventions
// (see MdtestHeaderTable), as CSV, the machine-readable summary mdtest
// lacks (hpc/ior issues #126 and #509). The header is
//
//	operation,max(ops/s),min(ops/s),mean(ops/s),stddev(ops/s),rankMax(ops/s),rankMin(ops/s),rankMean(ops/s),
//	timeMax(s),timeMin(s),timeMean(s),timeStddev(s),timeRankMax(s),timeRankMin(s),timeRankMean(s)
//
// (one line), then one record per operation of the rate table, in
// mdtest's order: the statistics of WriteMdtest's "SUMMARY rate" and
// "SUMMARY time" tables, times in seconds as their unit says, figures in
// shortest round-trip form, an empty cell for a figure not measured.
func WriteMdtestCSV(w io.Writer, r *Result) error {
	return WriteMdtestSweepCSV(w, []*Result{r})
}

// WriteMdtestSweepCSV writes the Results of an mdtest -f/-l/-s sweep, one
// per number of tasks in order: one Result as WriteMdtestCSV does,
// several with a first column "tasks" (the number of tasks of the row's
// run) before WriteMdtestCSV's, under one header line. Anything a Result
// lacks is an error, and nothing is written.
func WriteMdtestSweepCSV(w io.Writer, rs []*Result) error {
	if len(rs) == 0 {
		return fmt.Errorf("report: mdtest sweep: no results")
	}
	sweep := len(rs) > 1
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	header := []string{"operation",
		"max(ops/s)", "min(ops/s)", "mean(ops/s)", "stddev(ops/s)", "rankMax(ops/s)", "rankMin(ops/s)", "rankMean(ops/s)",
		"timeMax(s)", "timeMin(s)", "timeMean(s)", "timeStddev(s)", "timeRankMax(s)", "timeRankMin(s)", "timeRankMean(s)"}
	if sweep {
		header = append([]string{"tasks"}, header...)
	}
	_ = cw.Write(header)
	for k, r := range rs {
		run, err := decodeMdtest(r, mdtestNeeds{header: sweep, summary: true})
		if err != nil {
			if sweep {
				return fmt.Errorf("report: mdtest sweep, run %d of %d: %w", k+1, len(rs), err)
			}
			return err
		}
		for i, s := range run.rate {
			var rec []string
			if sweep {
				rec = append(rec, strconv.FormatInt(run.header.tasks, 10))
			}
			rec = append(rec, s.op)
			for _, v := range s.m {
				rec = append(rec, mdtestCSVFloat(v))
			}
			for _, v := range run.time[i].m {
				rec = append(rec, mdtestCSVFloat(v))
			}
			_ = cw.Write(rec)
		}
	}
	return flushMdtestCSV(w, cw, &b)
}

// mdtestCSVFloat formats v for WriteMdtestCSV: shortest round-trip form,
// empty for NaN.
func mdtestCSVFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// mdtestRankCSVPhases is how many of MdtestOperations mdtest's per-rank
// rows carry: all but the tree phases.
const mdtestRankCSVPhases = 9

// WriteMdtestRankCSV writes the ranks table of r, built by the mdtest
// conventions, as the file mdtest 4 writes with
// --saveRankPerformanceDetails=FILE, byte for byte in mdtest's layout:
//
//   - the header "rank,items" and a "rate-X,time-X" pair for each of
//     mdtest's 11 phases X, in MdtestOperations order;
//   - the row "all" with the items per rank and iteration 0's aggregate
//     rate and time of each phase (mdtest writes no other iteration's);
//   - one row per rank per iteration, iterations and ranks ascending, with
//     each phase's rate and time before the barrier.
//
// Figures are in C's %.10e (ops/s and seconds); a phase without figures
// is a pair of empty cells. As in mdtest, the per-rank rows leave items
// empty and end after File removal, so they are 4 cells shorter than the
// header: tools written for mdtest's file read this one unchanged, and a
// rank's item counts, which may differ per phase under stonewalling, are
// in the ranks table and WriteMdtestJSON rather than in one cell. Readers
// that want rectangular records must allow short ones (Go's
// csv.Reader.FieldsPerRecord = -1), as for mdtest's own file.
func WriteMdtestRankCSV(w io.Writer, r *Result) error {
	return WriteMdtestSweepRankCSV(w, []*Result{r})
}

// WriteMdtestSweepRankCSV writes the Results of an mdtest -f/-l/-s sweep,
// one per number of tasks in order, as mdtest's
// --saveRankPerformanceDetails file of a sweep: WriteMdtestRankCSV's
// header once, then each run's "all" row and per-rank rows (mdtest
// appends them to the file after each number of tasks). Anything a Result
// lacks is an error, and nothing is written.
func WriteMdtestSweepRankCSV(w io.Writer, rs []*Result) error {
	if len(rs) == 0 {
		return fmt.Errorf("report: mdtest sweep: no results")
	}
	ops := MdtestOperations()
	header := []string{"rank", "items"}
	for _, op := range ops {
		header = append(header, "rate-"+op, "time-"+op)
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(header)
	for k, r := range rs {
		run, err := decodeMdtest(r, mdtestNeeds{header: true, ranks: true})
		if err != nil {
			if len(rs) > 1 {
				return fmt.Errorf("report: mdtest sweep, run %d of %d: %w", k+1, len(rs), err)
			}
			return err
		}
		writeMdtestRankRecords(cw, run)
	}
	return flushMdtestCSV(w, cw, &b)
}

// writeMdtestRankRecords writes one run's records of WriteMdtestRankCSV:
// the "all" row, then one per rank per iteration.
func writeMdtestRankRecords(cw *csv.Writer, run *mdtestRun) {
	ops := MdtestOperations()
	e10 := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf("%.10e", v)
	}
	// figures[iter][rank] holds rate, time per phase; rank -1 is "all".
	type key struct{ iter, rank int64 }
	figures := map[key][]string{}
	var keys []key
	for _, k := range run.ranks {
		id := key{k.iter, k.rank}
		cells, ok := figures[id]
		if !ok {
			cells = make([]string, 2*len(ops))
			figures[id] = cells
			keys = append(keys, id)
		}
		i := mdtestOpIndex(k.op)
		cells[2*i], cells[2*i+1] = e10(k.rate), e10(k.time)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.iter, b.iter); c != 0 {
			return c
		}
		return cmp.Compare(a.rank, b.rank)
	})
	all := figures[key{0, -1}]
	if all == nil {
		all = make([]string, 2*len(ops))
	}
	_ = cw.Write(append([]string{MdtestAllRanks, strconv.FormatInt(run.header.itemsPerRank, 10)}, all...))
	for _, k := range keys {
		if k.rank < 0 {
			continue
		}
		rec := append([]string{strconv.FormatInt(k.rank, 10), ""}, figures[k][:2*mdtestRankCSVPhases]...)
		_ = cw.Write(rec)
	}
}

// flushMdtestCSV finishes cw, which writes to b, and copies b to w.
func flushMdtestCSV(w io.Writer, cw *csv.Writer, b *bytes.Buffer) error {
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: writing mdtest CSV: %w", err)
	}
	if _, err := b.WriteTo(w); err != nil {
		return fmt.Errorf("report: writing mdtest CSV: %w", err)
	}
	return nil
}
