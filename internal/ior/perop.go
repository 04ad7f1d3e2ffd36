package ior

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/report"
)

// opTimer is -O savePerOpDataCSV: a file that records the start and the
// duration of every transfer and writes them to IOR's per-operation CSV,
// one file per rank per repetition named PREFIX-REP-RANK.csv (rank in
// five digits), as IOR's OpTimer: the header "time,runtime,tp", then per
// transfer its start in seconds after the file was opened, its duration
// in seconds and the transfer size over the duration in bytes/s. As in
// IOR every pass of a repetition (write, -W check, read) rewrites the
// file, so it keeps the last. It wraps the file only when the option is
// given, so that the timed loop is not touched otherwise; the rows are
// held in memory and written every opBuffer transfers and at Close.
type opTimer struct {
	aiori.File
	clock func() float64
	base  float64 // when the pass's file was opened
	size  float64 // -t, the bytes of every transfer
	rows  []opTime
	out   io.WriteCloser
	w     *bufio.Writer
	err   error // the first failure writing the CSV
}

// opTime is one transfer: its start after base and its duration.
type opTime struct{ at, dur float64 }

// opBuffer is how many transfers opTimer holds before writing them.
const opBuffer = 1 << 16

// timeOps wraps f in an opTimer when -O savePerOpDataCSV is given.
func (t *tester) timeOps(f aiori.File) (aiori.File, error) {
	if t.o.SavePerOpDataCSV == "" {
		return f, nil
	}
	name := fmt.Sprintf("%s-%d-%05d.csv", t.o.SavePerOpDataCSV, t.rep, t.rank)
	out, err := os.Create(name)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("-O savePerOpDataCSV: %w", err), f.Close())
	}
	return newOpTimer(f, out, t.env.Clock, float64(t.o.TransferSize)), nil
}

// newOpTimer returns f timed by clock, writing its CSV to out.
func newOpTimer(f aiori.File, out io.WriteCloser, clock func() float64, size float64) *opTimer {
	o := &opTimer{File: f, clock: clock, base: clock(), size: size, rows: make([]opTime, 0, opBuffer), out: out, w: bufio.NewWriter(out)}
	_, o.err = o.w.WriteString(report.OpTimeHeader)
	return o
}

// WriteAt times the inner WriteAt.
func (o *opTimer) WriteAt(p []byte, off int64) (int, error) {
	start := o.clock()
	n, err := o.File.WriteAt(p, off)
	o.record(start, o.clock())
	return n, err
}

// ReadAt times the inner ReadAt.
func (o *opTimer) ReadAt(p []byte, off int64) (int, error) {
	start := o.clock()
	n, err := o.File.ReadAt(p, off)
	o.record(start, o.clock())
	return n, err
}

// record keeps one transfer, writing the held ones when opBuffer are.
func (o *opTimer) record(start, end float64) {
	o.rows = append(o.rows, opTime{at: start - o.base, dur: end - start})
	if len(o.rows) == opBuffer {
		o.flush()
	}
}

// flush writes the held rows as IOR's OpTimerFlush prints them
// ("%.8e,%.8e,%e"; a zero duration gives C's inf).
func (o *opTimer) flush() {
	var b []byte
	for _, r := range o.rows {
		b = report.AppendOpTime(b[:0], r.at, r.dur, o.size)
		if _, err := o.w.Write(b); err != nil && o.err == nil {
			o.err = err
		}
	}
	o.rows = o.rows[:0]
}

// Close writes the rest of the CSV and closes it and the inner file.
func (o *opTimer) Close() error {
	o.flush()
	err := o.err
	if ferr := o.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := o.out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		err = fmt.Errorf("-O savePerOpDataCSV: %w", err)
	}
	return errors.Join(err, o.File.Close())
}
