package mdtest

import (
	"bufio"
	"fmt"
	"os"

	"github.com/hpcbench/hpcbench/report"
)

// opTimes records, for --savePerOpDataCSV, when each operation of a file
// phase started and how long it ran, as mdtest's OpTimer does.
type opTimes struct {
	clock func() float64
	start []float64 // clock readings at each operation's start
	run   []float64 // seconds each ran
}

// perOpPhase reports whether mdtest writes --savePerOpDataCSV files for
// phase name: the four file phases.
func perOpPhase(name string) bool {
	switch name {
	case phFileCreate, phFileStat, phFileRead, phFileRemove:
		return true
	}
	return false
}

// timeOps returns op (a rank's own items) and cop (rank 0's pass over
// every rank's items under -c) wrapped to record each call's start and
// duration in t, in call order, with room for n calls before it grows.
// Only a phase saved by --savePerOpDataCSV pays for the two clock
// readings per operation.
func (t *opTimes) timeOps(op, cop opFunc, n int64) (opFunc, opFunc) {
	t.start = make([]float64, 0, n)
	t.run = make([]float64, 0, n)
	return t.timed(op), t.timed(cop)
}

// timed wraps op to record its calls in t.
func (t *opTimes) timed(op opFunc) opFunc {
	return func(p string) error {
		s := t.clock()
		err := op(p)
		t.start = append(t.start, s)
		t.run = append(t.run, t.clock()-s)
		return err
	}
}

// perOpBytes is the size mdtest's OpTimer divides by the runtime for the
// tp column: -w for create and remove, -e for read, 1 for stat (and when
// the size is 0).
func (r *runner) perOpBytes(name string) float64 {
	n := int64(1)
	switch name {
	case phFileCreate, phFileRemove:
		n = r.o.WriteBytes
	case phFileRead:
		n = r.o.ReadBytes
	}
	return float64(max(n, 1))
}

// savePerOp writes t as mdtest's --savePerOpDataCSV file of phase name on
// this rank, PREFIX-PHASE-RANK.csv (rank in 5 digits): the header
// "time,runtime,tp", then per operation its start in seconds since the
// phase began (t0), its runtime, and size/runtime, in C's %.8e, %.8e and
// %e ("inf" for an operation too short for the clock, as C prints it).
func (r *runner) savePerOp(name string, t *opTimes, t0 float64) error {
	path := fmt.Sprintf("%s-%s-%05d.csv", r.o.SavePerOpDataCSV, name, r.rank)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("mdtest: --savePerOpDataCSV: %w", err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(report.OpTimeHeader)
	size := r.perOpBytes(name)
	var b []byte
	for i, s := range t.start {
		b = report.AppendOpTime(b[:0], s-t0, t.run[i], size)
		w.Write(b)
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mdtest: --savePerOpDataCSV: %s: %w", path, err)
	}
	return nil
}
