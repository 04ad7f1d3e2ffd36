package ior

import (
	"context"
	"fmt"

	"github.com/hpcbench/hpcbench/aiori"
)

// prefill is --randomPrefill, run by every rank inside the timed write
// window before the random writes, as IOR's prefillSegment: each active
// rank writes its blocks of every segment sequentially, in pieces of
// RandomPrefill bytes of 0xff (data no check accepts), so that the file
// has its full size before -z writes land in it; then all ranks meet at a
// barrier, so that no rank starts its random writes before the others'
// blocks exist. IOR also prefills before its -W check, overwriting what it
// is about to check; here only the write prefills.
func (t *tester) prefill(ctx context.Context, acc access, file aiori.File, pl *plan) error {
	if acc != accWrite || t.o.RandomPrefill <= 0 {
		return nil
	}
	if t.active && file != nil {
		o := t.o
		buf := aiori.AlignedBuffer(int(o.RandomPrefill))
		for i := range buf {
			buf[i] = 0xff
		}
		stride, start := o.BlockSize, int64(0)
		if !o.FilePerProc {
			stride, start = int64(t.numTasks)*o.BlockSize, int64(pl.pretend)*o.BlockSize
		}
		for s := range o.SegmentCount {
			for off := int64(0); off < o.BlockSize; off += o.RandomPrefill {
				at := s*stride + start + off
				if _, err := file.WriteAt(buf, at); err != nil {
					return fmt.Errorf("--randomPrefill: write %s at offset %d: %w", pl.path, at, err)
				}
			}
		}
	}
	return t.barrier(ctx)
}
