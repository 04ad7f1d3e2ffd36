package ior

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/report"
)

// idleStamps are the readings of a rank that takes no part (-N): they
// change neither the MIN of the starts nor the MAX of the stops.
func idleStamps() [nStamps]float64 {
	var st [nStamps]float64
	for i := range st {
		if i%2 == 0 {
			st[i] = math.Inf(1)
		} else {
			st[i] = math.Inf(-1)
		}
	}
	return st
}

// reduce combines every rank's readings and counts into f: the starts by
// MIN, the stops by MAX, the counts by SUM, the latency by MIN, and
// gathers each rank's own times on rank 0. Every rank calls it.
func (t *tester) reduce(ctx context.Context, f *phaseFigures, st [nStamps]float64, moved, count, bad int64, stone stoneState) error {
	if !t.active {
		st = idleStamps()
	}
	// One MIN over the starts, the negated stops and the latency.
	lat := math.Inf(1)
	if t.active && count > 0 {
		lat = (st[xferStop] - st[xferStart]) / float64(count)
	}
	stoneAt := math.Inf(1) // negated below: MIN of -at is -MAX of at
	if stone.hit {
		stoneAt = -stone.at
	}
	mins := [...]float64{st[openStart], st[xferStart], st[closeStart], -st[openStop], -st[xferStop], -st[closeStop], lat, stoneAt}
	var sendF, recvF [len(mins) * 8]byte
	for i, v := range mins {
		binary.LittleEndian.PutUint64(sendF[i*8:], math.Float64bits(v))
	}
	if err := t.c.Allreduce(ctx, sendF[:], recvF[:], collectives.Float64, collectives.Min); err != nil {
		return fmt.Errorf("allreduce the timers: %w", err)
	}
	var r [len(mins)]float64
	for i := range r {
		r[i] = math.Float64frombits(binary.LittleEndian.Uint64(recvF[i*8:]))
	}
	f.open = -r[3] - r[0]
	f.wrrd = -r[4] - r[1]
	f.close = -r[5] - r[2]
	f.total = -r[5] - r[0]
	f.latency = r[6]
	if math.IsInf(f.latency, 0) {
		f.latency = math.NaN()
	}

	// One SUM over the counts. Bytes moved by the deadline are this
	// rank's transfers by then.
	stoneBytes := int64(0)
	if stone.hit || t.stonewalls() {
		stoneBytes = stone.count * t.o.TransferSize
	}
	if !t.active {
		stoneBytes = 0
	}
	sums := [...]int64{moved, count, bad, stoneBytes}
	var sendI, recvI [len(sums) * 8]byte
	for i, v := range sums {
		binary.LittleEndian.PutUint64(sendI[i*8:], uint64(v))
	}
	if err := t.c.Allreduce(ctx, sendI[:], recvI[:], collectives.Int64, collectives.Sum); err != nil {
		return fmt.Errorf("allreduce the counts: %w", err)
	}
	f.bytes = int64(binary.LittleEndian.Uint64(recvI[0:]))
	f.transfers = int64(binary.LittleEndian.Uint64(recvI[8:]))
	f.errors = float64(int64(binary.LittleEndian.Uint64(recvI[16:])))
	if t.stonewalls() && !math.IsInf(r[7], 0) {
		f.stonewall = -r[7]
		f.stoneBytes = int64(binary.LittleEndian.Uint64(recvI[24:]))
		f.stoneMin, f.stoneMax = stone.count, t.stoneMax
	}

	// Every rank's own times, gathered on rank 0 for the per-rank CSV.
	var own [16]byte
	total, xfer := math.NaN(), math.NaN()
	if t.active {
		total, xfer = st[closeStop]-st[openStart], st[xferStop]-st[xferStart]
	}
	binary.LittleEndian.PutUint64(own[0:], math.Float64bits(total))
	binary.LittleEndian.PutUint64(own[8:], math.Float64bits(xfer))
	var all []byte
	if t.rank == 0 {
		all = make([]byte, 16*t.c.Size())
	}
	if err := t.c.Gather(ctx, own[:], all, 0); err != nil {
		return fmt.Errorf("gather the rank times: %w", err)
	}
	if t.rank == 0 {
		for i := 0; i < t.numTasks; i++ {
			f.rankTotal = append(f.rankTotal, math.Float64frombits(binary.LittleEndian.Uint64(all[i*16:])))
			f.rankXfer = append(f.rankXfer, math.Float64frombits(binary.LittleEndian.Uint64(all[i*16+8:])))
		}
		t.outliers(f)
	}
	return nil
}

// outliers prints -j's warnings: ranks whose phase time is more than the
// threshold away from the mean.
func (t *tester) outliers(f *phaseFigures) {
	if t.o.OutlierThreshold <= 0 || len(f.rankTotal) == 0 {
		return
	}
	mean := report.Summarize(f.rankTotal).Strict().Mean
	for i, v := range f.rankTotal {
		if math.Abs(v-mean) > float64(t.o.OutlierThreshold) {
			t.env.Warn(fmt.Sprintf("WARNING: for task %d, %s elapsed time is %.6f sec, which is more than %d sec from the mean %.6f sec",
				i, f.access, v, t.o.OutlierThreshold, mean))
		}
	}
}

// checkSize compares, on rank 0 after a phase, the bytes moved with the
// bytes expected and with the file size, and warns as IOR does when they
// differ.
func (t *tester) checkSize(f *phaseFigures, acc access, rep int) {
	if t.o.DryRun || t.stonewalls() || t.o.MinTimeDuration > 0 || f.access == "remove" {
		return
	}
	want := t.o.AggregateSize(t.numTasks)
	if t.o.StoneWallingWearOutIterations > 0 {
		return
	}
	var stat int64 = -1
	if acc == accWrite || acc == accRead {
		if t.o.FilePerProc {
			var sum int64
			for r := 0; r < t.numTasks; r++ {
				n, err := t.be.FileSize(t.fileName(r, rep))
				if err != nil {
					sum = -1
					break
				}
				sum += n
			}
			stat = sum
		} else if n, err := t.be.FileSize(t.fileName(0, rep)); err == nil {
			stat = n
		}
	}
	if f.bytes == want && (stat < 0 || stat == want) {
		return
	}
	t.env.Warn(fmt.Sprintf("WARNING: Expected aggregate file size       = %d", want))
	if stat >= 0 {
		t.env.Warn(fmt.Sprintf("WARNING: Stat() of aggregate file size      = %d", stat))
	}
	t.env.Warn(fmt.Sprintf("WARNING: Using actual aggregate bytes moved = %d", f.bytes))
}
