package io500

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// result is the run as hpcbench's archive keeps it: the configuration's
// values as parameters, the phases and the score as tables, the reasons
// the run is invalid as the score table's notes.
func (b *Benchmark) result(e *pipeline.Env, o *Outcome) *report.Result {
	res := report.New(report.BenchmarkIO500)
	res.Run = e.Record.BaseRun()
	res.Run.Benchmark = report.BenchmarkIO500
	res.Run.Start, res.Run.End = o.Start, o.End
	res.Params = append(res.Params,
		report.Param{Name: "version", Value: o.Version},
		report.Param{Name: "config-hash", Value: hashHex(o.ConfigHash)},
		report.Param{Name: "stonewall-time", Value: fmt.Sprint(b.plan.Stonewall)},
		report.Param{Name: "result-dir", Value: o.ResultDir, Incidental: true},
		report.Param{Name: "datadir", Value: b.plan.DataDir, Incidental: true})
	for _, k := range b.Config.SetKeys() {
		// Where the run wrote says nothing of what it measured.
		where := k == "global.datadir" || k == "global.resultdir" || k == "global.drop-caches-cmd" || k == "debug.pause-dir"
		res.Params = append(res.Params, report.Param{Name: k, Value: b.Config.setValue(k), Incidental: where})
	}
	phases := report.Table{Name: report.IO500PhasesTable, Columns: []report.Column{
		{Name: "phase", Kind: report.KindLabel},
		{Name: "bw", Kind: report.KindMetric, Unit: "GiB/s", Better: report.BetterHigher},
		{Name: "md", Kind: report.KindMetric, Unit: "kIOPS", Better: report.BetterHigher},
		{Name: "time", Kind: report.KindMetric, Unit: "s"},
		{Name: "found", Kind: report.KindMetric},
		{Name: "total", Kind: report.KindMetric},
		{Name: "invalid", Kind: report.KindMetric, Better: report.BetterLower},
		{Name: "scored", Kind: report.KindMetric},
	}}
	for i := range o.Phases {
		p := &o.Phases[i]
		bw, md, found, total, scored := math.NaN(), math.NaN(), math.NaN(), math.NaN(), 1.0
		switch {
		case p.phase.Tool == toolTimestamp:
			scored = 0
		case p.phase.Group == noScore: // ior-rnd4K-easy-read: GiB/s, not scored
			bw, scored = p.Score, 0
		case p.phase.Group == groupBW:
			bw = p.Score
		default:
			md = p.Score
		}
		if p.phase.Tool == toolFind {
			found, total = float64(p.Found), float64(p.Total)
		}
		phases.Rows = append(phases.Rows, report.Row{Labels: []string{p.phase.Name},
			Metrics: []float64{bw, md, p.Seconds, found, total, float64(len(p.Invalid)), scored}})
	}
	score := report.Table{Name: report.IO500ScoreTable, Columns: []report.Column{
		{Name: "run", Kind: report.KindLabel},
		{Name: "bw", Kind: report.KindMetric, Unit: "GiB/s", Better: report.BetterHigher},
		{Name: "md", Kind: report.KindMetric, Unit: "kIOPS", Better: report.BetterHigher},
		{Name: "score", Kind: report.KindMetric, Better: report.BetterHigher},
	}, Rows: []report.Row{{Labels: []string{"io500"}, Metrics: []float64{o.Score.BW, o.Score.MD, o.Score.Total}}}}
	for _, r := range o.RunInvalid {
		score.Notes = append(score.Notes, report.IO500InvalidNote+r.Plain)
	}
	for i := range o.Phases {
		for _, r := range o.Phases[i].Invalid {
			score.Notes = append(score.Notes, report.IO500InvalidNote+r.Plain)
		}
	}
	res.Tables = []report.Table{phases, score}
	return res
}

// Render writes the result files on rank 0: result.txt and
// result_summary.txt in the results dir (whole or not at all). The
// console lines went to stdout as the phases ran.
func (b *Benchmark) Render(_ *report.Result) error {
	o := b.outcome
	if err := pipeline.WriteFile(b.plan.res("result.txt"), func(w io.Writer) error { return WriteResultTxt(w, o) }); err != nil {
		return fmt.Errorf("io500: %w", err)
	}
	if err := pipeline.WriteFile(b.plan.res("result_summary.txt"), func(w io.Writer) error { return WriteSummary(w, o) }); err != nil {
		return fmt.Errorf("io500: %w", err)
	}
	return nil
}

func putInt64(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }
func getInt64(b []byte) int64    { return int64(binary.LittleEndian.Uint64(b)) }
