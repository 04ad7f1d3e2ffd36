package report

import (
	"io"
	"math"
	"strings"
)

// The tables of an IO500 run's archive (hpcbench io500).
const (
	// IO500PhasesTable has a row per phase: label "phase"; metrics "bw"
	// (GiB/s, the ior phases' score), "md" (kIOPS, the mdtest and find
	// phases' score), "time" (s), find's "found" and "total", "invalid",
	// the number of rules the phase broke, and "scored", 1 for a phase
	// that counts in the score (0: the timestamp, ior-rnd4K-easy-read).
	IO500PhasesTable = "io500 phases"
	// IO500ScoreTable has one row: "bw" (GiB/s), "md" (kIOPS) and
	// "score", IO500's geometric means and their product's root; its
	// notes say why the run is invalid.
	IO500ScoreTable = "io500 score"
)

// ViewIO500 is IO500's console summary (its result_summary.txt),
// WriteIO500.
const ViewIO500 = "io500"

// IO500InvalidNote prefixes the IO500ScoreTable's notes that say why the
// run is invalid.
const IO500InvalidNote = "INVALID: "

// WriteIO500 renders an IO500 run's archive as its result_summary.txt:
// the plain reasons it is invalid, the version line, each phase's
// [RESULT] line and the [SCORE ] line. It writes nothing when the Result
// has no IO500PhasesTable.
func WriteIO500(w io.Writer, res *Result) error {
	var r IO500Run
	for _, p := range res.Params {
		if p.Name == "version" {
			r.Version = p.Value
		}
	}
	found := false
	for i := range res.Tables {
		t := &res.Tables[i]
		col := func(name string) int {
			m := 0
			for _, c := range t.Columns {
				if c.Kind != KindMetric {
					continue
				}
				if c.Name == name {
					return m
				}
				m++
			}
			return -1
		}
		get := func(row Row, name string) float64 {
			if k := col(name); k >= 0 && k < len(row.Metrics) {
				return row.Metrics[k]
			}
			return math.NaN()
		}
		switch t.Name {
		case IO500PhasesTable:
			found = true
			for _, row := range t.Rows {
				if len(row.Labels) == 0 {
					continue
				}
				score := get(row, "bw")
				if math.IsNaN(score) {
					score = get(row, "md")
				}
				if math.IsNaN(score) {
					score = 0
				}
				r.Phases = append(r.Phases, IO500Phase{Name: row.Labels[0], Scored: get(row, "scored") == 1, Score: score,
					Seconds: get(row, "time"), Invalid: get(row, "invalid") > 0})
			}
		case IO500ScoreTable:
			if len(t.Rows) > 0 {
				r.BW, r.MD, r.Score = get(t.Rows[0], "bw"), get(t.Rows[0], "md"), get(t.Rows[0], "score")
			}
			for _, n := range t.Notes {
				if why, ok := strings.CutPrefix(n, IO500InvalidNote); ok {
					r.Why = append(r.Why, why)
				}
			}
		}
	}
	if !found {
		return nil
	}
	return WriteIO500Summary(w, &r)
}
