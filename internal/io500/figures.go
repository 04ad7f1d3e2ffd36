package io500

import (
	"fmt"
	"math"

	"github.com/hpcbench/hpcbench/report"
)

// metric returns the value of column col in the first row of table whose
// first label is label (prefix match on the table name: IOR's tables are
// numbered per test).
func metric(res *report.Result, table, label, col string) (float64, error) {
	if res == nil {
		return 0, fmt.Errorf("no result")
	}
	for ti := range res.Tables {
		t := &res.Tables[ti]
		if t.Name != table {
			continue
		}
		ci, mi := -1, 0
		for i, c := range t.Columns {
			if c.Name == col {
				ci = i
				break
			}
			if c.Kind == report.KindMetric {
				mi++
			}
		}
		if ci < 0 || t.Columns[ci].Kind != report.KindMetric {
			return 0, fmt.Errorf("table %q has no metric column %q", table, col)
		}
		for _, r := range t.Rows {
			if len(r.Labels) > 0 && r.Labels[0] == label && mi < len(r.Metrics) {
				return r.Metrics[mi], nil
			}
		}
		return 0, fmt.Errorf("table %q has no row %q", table, label)
	}
	return 0, fmt.Errorf("no table %q", table)
}

// iorFigures are what IO500 takes from an ior run's Result.
type iorFigures struct {
	BW        float64 // MiB/s: aggregate bytes over the phase's time (IOR's bw)
	Seconds   float64 // the phase's time
	Stonewall float64 // s when the stonewall hit (NaN without)
	StoneBW   float64 // MiB/s per rank up to the stonewall (IOR's Stonewall(MiB))
	Errors    int64
}

// iorResult reads the figures of access ("write" or "read").
func iorResult(res *report.Result, access string) (iorFigures, error) {
	var f iorFigures
	var err error
	get := func(col string) float64 {
		v, e := metric(res, report.IORSummaryTable, access, col)
		if e != nil && err == nil {
			err = fmt.Errorf("ior's result: %w", e)
		}
		return v
	}
	f.BW, f.Seconds, f.Stonewall, f.StoneBW = get("Mean(MiB)"), get("Mean(s)"), get("Stonewall(s)"), get("Stonewall(MiB)")
	if err != nil {
		return f, err
	}
	for ti := range res.Tables {
		t := &res.Tables[ti]
		if _, kind, ok := report.ParseIORTableName(t.Name); !ok || kind != report.IORResults {
			continue
		}
		for _, r := range t.Rows {
			if len(r.Labels) > 0 && r.Labels[0] == access {
				if e := r.Metrics[len(r.Metrics)-1]; !math.IsNaN(e) {
					f.Errors += int64(e)
				}
			}
		}
	}
	return f, nil
}

// mdtestRate reads the rate (ops/s) and time (s) of op.
func mdtestRate(res *report.Result, op string) (rate, seconds float64, err error) {
	if rate, err = metric(res, report.MdtestRateTable, op, "mean"); err != nil {
		return 0, 0, fmt.Errorf("mdtest's result: %w", err)
	}
	if seconds, err = metric(res, report.MdtestTimeTable, op, "mean"); err != nil {
		return 0, 0, fmt.Errorf("mdtest's result: %w", err)
	}
	return rate, seconds, nil
}

// mdtestStonewallRate reads the rate (ops/s) of op at the stonewall:
// every rank's items done then over the time to it (IO500's
// rate-stonewall); ok is false when mdtest has no such figures (no -W).
func mdtestStonewallRate(res *report.Result, op string) (rate float64, ok bool) {
	v, err := metric(res, report.MdtestStonewallTable, op, "rate")
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
