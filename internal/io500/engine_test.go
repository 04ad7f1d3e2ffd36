package io500

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/jobtest"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// fakeIOR is an ior run that moved bw MiB/s in secs, with errors.
func fakeIOR(access string, bw, secs float64, errors float64) *report.Result {
	r := report.New("ior")
	nan := math.NaN()
	r.Tables = []report.Table{
		{Name: report.IORTableName(0, report.IORResults), Columns: report.IORResultsColumns(), Rows: []report.Row{
			report.IORPhase{Access: access, BW: bw, IOPS: nan, Latency: nan, Open: nan, WrRd: nan, Close: nan, Total: secs, Errors: errors}.Row()}},
		{Name: report.IORSummaryTable, Columns: report.IORSummaryColumns(), Rows: []report.Row{
			report.IORSummary{Operation: access, BWMax: bw, BWMin: bw, BWMean: bw, OPsMax: nan, OPsMin: nan, OPsMean: nan, OPsStdDev: nan,
				MeanTime: secs, StonewallTime: nan, StonewallBW: nan, AggMiB: bw * secs}.Row()}},
	}
	return r
}

// fakeMdtest is an mdtest run of op at rate ops/s.
func fakeMdtest(op string, rate float64) *report.Result {
	r := report.New("mdtest")
	r.Tables = []report.Table{
		{Name: report.MdtestRateTable, Columns: report.MdtestRateColumns(), Rows: []report.Row{
			report.MdtestSummary{Operation: op, Max: rate, Min: rate, Mean: rate, RankMax: rate, RankMin: rate, RankMean: rate}.RateRow()}},
		{Name: report.MdtestTimeTable, Columns: report.MdtestTimeColumns(), Rows: []report.Row{
			report.MdtestSummary{Operation: op, Max: 1, Min: 1, Mean: 1, RankMax: 1, RankMin: 1, RankMean: 1}.TimeRow()}},
	}
	return r
}

// TestRunGolden runs the engine on 2 in-process ranks with tools that
// report fixed figures (the ior read phases with one error), a clock that
// advances 0.25 s a reading and a fixed date: the console, result.txt and
// result_summary.txt are golden.
func TestRunGolden(t *testing.T) {
	dir := t.TempDir()
	ini := fmt.Sprintf("[global]\ndatadir = %s/data\nresultdir = %s/results\ntimestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n[debug]\nstonewall-time = 1\n", dir, dir)
	cfg, err := ParseConfig("short.ini", ini)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []string
	ior := func(ctx context.Context, e *pipeline.Env, args []string, out io.Writer) (*report.Result, error) {
		fmt.Fprintln(out, "ior output")
		mu.Lock()
		calls = append(calls, fmt.Sprintf("rank %d: ior %s", e.Job.Comm.Rank(), strings.Join(args, " ")))
		mu.Unlock()
		if e.Job.Comm.Rank() != 0 {
			return nil, nil
		}
		if strings.Contains(strings.Join(args, " "), " -w ") {
			return fakeIOR("write", 2048, 0.5, math.NaN()), nil
		}
		return fakeIOR("read", 3072, 0.5, 1), nil
	}
	mdtest := func(ctx context.Context, e *pipeline.Env, args []string, out io.Writer) (*report.Result, error) {
		if e.Job.Comm.Rank() != 0 {
			return nil, nil
		}
		a := " " + strings.Join(args, " ") + " "
		for flag, op := range map[string]string{" -C ": report.MdtestFileCreate, " -T ": report.MdtestFileStat, " -E ": report.MdtestFileRead, " -r ": report.MdtestFileRemove} {
			if strings.Contains(a, flag) {
				return fakeMdtest(op, 50000), nil
			}
		}
		return nil, fmt.Errorf("no operation in %q", a)
	}
	var console bytes.Buffer
	now := time.Date(2026, 12, 6, 13, 38, 50, 0, time.Local)
	errs := jobtest.Run(t, 2, nil, func(ctx context.Context, c *collectives.Comm) error {
		var reading float64
		b := &Benchmark{Config: cfg, Version: "hpcbench-test", IOR: ior, Mdtest: mdtest, Stdout: &console,
			Now: func() time.Time { return now }, Clock: func() float64 { reading += 0.25; return reading }}
		e := &pipeline.Env{Job: &job.Job{Comm: c}, Phase: func(string, int, int64, int64) {}, Stdout: io.Discard, Stderr: io.Discard}
		res, err := b.Run(ctx, e)
		if err != nil || c.Rank() != 0 {
			return err
		}
		if err := res.Validate(); err != nil {
			return fmt.Errorf("the archive's Result: %w", err)
		}
		return b.Render(res)
	})
	jobtest.NoErrors(t, errs)
	// The temporary dir, and the config-hash that hashes it, vary.
	clean := func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("= "+hashHex(cfg.Hash())+"\n"), []byte("= CONFIGHASH\n"))
		return bytes.ReplaceAll(b, []byte(dir), []byte("DIR"))
	}
	golden(t, "testdata/run-console.golden", clean(console.Bytes()))
	for _, f := range []string{"result.txt", "result_summary.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, "results", f))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "testdata/run-"+f+".golden", clean(data))
	}
	// Every rank ran every ior phase, with the same command line.
	if n := len(calls); n != 2*5 {
		t.Errorf("%d ior calls, want 10 (5 phases on 2 ranks): %q", n, calls)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "data")); len(left) != 0 {
		t.Errorf("left in the data dir: %v", left)
	}
}
