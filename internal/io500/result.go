package io500

import (
	"io"
	"time"

	"github.com/hpcbench/hpcbench/report"
)

// entry is one line of a phase's section in result.txt: a key = value
// pair, or (Invalid set) a "; ERROR INVALID" line in IO500's words.
type entry struct {
	Key, Val, Invalid string
}

// PhaseResult is one phase as the run saw it.
type PhaseResult struct {
	phase phase
	// Exe is the phase's command line ("" for the timestamp).
	Exe string
	// Entries are the phase's own lines of result.txt between exe and
	// score, in the order they came.
	Entries []entry
	// Score is GiB/s or kIOPS; Seconds the phase's runtime (t_delta).
	Score, Seconds float64
	Start, End     time.Time
	// PauseFile is the [debug] pause-dir file looked for before the
	// phase, at PauseAt ("" without pause-dir).
	PauseFile string
	PauseAt   time.Time
	// Invalid lists why the phase is invalid, in order.
	Invalid []Reason
	// Find's counts, for the archive.
	Found, Total int64
}

// invalid records a reason the phase is invalid, also as a
// "; ERROR INVALID" line of its section.
func (r *PhaseResult) invalid(why Reason) {
	r.Invalid = append(r.Invalid, why)
	r.Entries = append(r.Entries, entry{Invalid: why.IO500})
}

// pair records a key = value line of the phase.
func (r *PhaseResult) pair(key, val string) { r.Entries = append(r.Entries, entry{Key: key, Val: val}) }

// Outcome is a whole run: the run-level facts and every phase.
type Outcome struct {
	Procs int
	// Verbosity is [global] verbosity: at 0, result.txt has no times.
	Verbosity  int64
	Version    string
	ConfigHash uint32
	ResultDir  string
	Start, End time.Time
	// RunInvalid are the run-level reasons ("stonewall-time 2s != 300s").
	RunInvalid []Reason
	Phases     []PhaseResult
	Score      Score
	ScoreHash  uint32
}

// reasons lists every rule the run broke: the run's, then each phase's.
func (o *Outcome) reasons() []Reason {
	why := append([]Reason(nil), o.RunInvalid...)
	for i := range o.Phases {
		why = append(why, o.Phases[i].Invalid...)
	}
	return why
}

// Valid reports whether no rule was broken.
func (o *Outcome) Valid() bool {
	if len(o.RunInvalid) > 0 {
		return false
	}
	for i := range o.Phases {
		if len(o.Phases[i].Invalid) > 0 {
			return false
		}
	}
	return true
}

// finish computes the score and its hash, as IO500: the version, every
// scored phase's score, MD, BW, SCORE and, for an invalid run, valid=NO.
func (o *Outcome) finish() {
	o.Score = ComputeScore(o.Phases)
	h := hashKeyVal(0, "version", o.Version)
	for i := range o.Phases {
		if p := &o.Phases[i]; p.phase.Group != noScore {
			h = hashKeyFloat(h, p.phase.Name, p.Score)
		}
	}
	h = hashKeyFloat(h, "MD", o.Score.MD)
	h = hashKeyFloat(h, "BW", o.Score.BW)
	h = hashKeyFloat(h, "SCORE", o.Score.Total)
	if !o.Valid() {
		h = hashKeyVal(h, "valid", "NO")
	}
	o.ScoreHash = h
}

// report is o as report's IO500Run, what its writers render.
func (o *Outcome) report() *report.IO500Run {
	r := &report.IO500Run{Procs: o.Procs, Verbosity: o.Verbosity, Version: o.Version, ConfigHash: hashHex(o.ConfigHash),
		ScoreHash: hashHex(o.ScoreHash), ResultDir: o.ResultDir, Start: o.Start, End: o.End,
		BW: o.Score.BW, MD: o.Score.MD, Score: o.Score.Total}
	for _, why := range o.RunInvalid {
		r.RunInvalid = append(r.RunInvalid, why.IO500)
	}
	for _, why := range o.reasons() {
		r.Why = append(r.Why, why.Plain)
	}
	for i := range o.Phases {
		r.Phases = append(r.Phases, o.Phases[i].report())
	}
	return r
}

// report is p as report's IO500Phase.
func (p *PhaseResult) report() report.IO500Phase {
	rp := report.IO500Phase{Name: p.phase.Name, Scored: p.phase.Group != noScore, HasScore: p.phase.Tool != toolTimestamp,
		Exe: p.Exe, Score: p.Score, Seconds: p.Seconds, Start: p.Start, End: p.End,
		PauseFile: p.PauseFile, PauseAt: p.PauseAt, Invalid: len(p.Invalid) > 0}
	for _, e := range p.Entries {
		rp.Lines = append(rp.Lines, report.IO500Line{Key: e.Key, Val: e.Val, Invalid: e.Invalid})
	}
	return rp
}

// WriteResultTxt writes o's result.txt (report.WriteIO500ResultTxt).
func WriteResultTxt(w io.Writer, o *Outcome) error { return report.WriteIO500ResultTxt(w, o.report()) }

// WriteSummary writes o's result_summary.txt (report.WriteIO500Summary).
func WriteSummary(w io.Writer, o *Outcome) error { return report.WriteIO500Summary(w, o.report()) }
