package ior

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/distribution"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
	"github.com/hpcbench/hpcbench/internal/jobtest"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// TestCollectiveWriteKeepsHoles: rounds whose pieces leave holes are read
// before they are written (ROMIO's read-modify-write), so the bytes
// between the ranks' pieces keep what the file held, and the pieces get
// their data; a collective read of the same requests gets it back.
func TestCollectiveWriteKeepsHoles(t *testing.T) {
	t.Parallel()
	const size, fill = 100, 0xab
	offs := [][]int64{{0, 300, 1000, 1500}, {150, 700, 1200}}
	path := filepath.Join(t.TempDir(), "holes")
	old := bytes.Repeat([]byte{fill}, 1800)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	reqs := make([]twophase.Request, len(offs))
	for r, o := range offs {
		reqs[r] = twophase.Request{N: int64(len(o)), Size: size, At: func(i int64) int64 { return o[i] }}
	}
	for _, aggs := range [][]int{{0}, {0, 1}} {
		for _, acc := range []access{accWrite, accRead} {
			errs := jobtest.Run(t, 2, nil, func(ctx context.Context, c *collectives.Comm) error {
				return holesPass(ctx, t, c, path, acc, reqs, aggs)
			})
			jobtest.NoErrors(t, errs)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Clone(old)
		for r, o := range offs {
			piece := make([]byte, size)
			for _, off := range o {
				pattern.Fill(piece, pattern.Offset, r, 7, off)
				copy(want[off:], piece)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("aggregators %v: the file differs from the pieces over the old bytes", aggs)
		}
	}
}

// holesPass runs one collective pass of reqs on this rank, cb_buffer_size
// 256 (rounds that cut pieces), checking what it reads.
func holesPass(ctx context.Context, t *testing.T, c *collectives.Comm, path string, acc access, reqs []twophase.Request, aggs []int) error {
	o := config.DefaultOptions()
	o.TransferSize, o.CheckRead = 100, true
	rec, err := distribution.New(time.Second, distribution.Steady{})
	if err != nil {
		return err
	}
	tt := &tester{o: &o, env: Env{}.withDefaults(), rank: c.Rank(), ptype: pattern.Offset, sig: 7, rec: rec,
		buf: make([]byte, 100), dc: c, collSend: map[int][]byte{}}
	pattern.Fill(tt.buf, tt.ptype, c.Rank(), tt.sig, 0)
	tt.startDist(0)
	e := posix.Entry()
	be, err := e.New(e.NewOptions(), aiori.Env{})
	if err != nil {
		return err
	}
	defer be.Close()
	f, err := be.Open(path, aiori.ReadWrite)
	if err != nil {
		return err
	}
	defer f.Close()
	tp, err := twophase.NewPlan(reqs, aggs, 256, 0)
	if err != nil {
		return err
	}
	p := &collPass{t: tt, c: c, me: c.Rank(), file: f, acc: acc, pl: &plan{path: path, pretend: c.Rank(), count: reqs[c.Rank()].N},
		d: collDecision{collective: true, plan: tp, reqs: reqs}, agg: tp.AggIndex(c.Rank()), write: acc == accWrite,
		verify: acc == accRead, partial: map[int64]*collPiece{}, sendBufs: tt.collSend}
	if p.agg >= 0 {
		p.bufs = tt.collBuffers(256)
	}
	n, bad, err := p.rounds(ctx)
	if err != nil {
		return err
	}
	if n != reqs[c.Rank()].N || bad != 0 {
		t.Errorf("rank %d %s: %d transfers, %d corrupt; want %d, 0", c.Rank(), acc, n, bad, reqs[c.Rank()].N)
	}
	return nil
}
