package io500

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// entry is one line of a phase's section in result.txt: a key = value
// pair, or (Invalid set) a "; ERROR INVALID" line.
type entry struct {
	Key, Val string
	Invalid  *Reason
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

// Name is the phase's name ("ior-easy-write").
func (r *PhaseResult) Name() string { return r.phase.Name }

// unit is the phase's score unit as the console prints it.
func (r *PhaseResult) unit() string {
	if strings.HasPrefix(r.phase.Name, "i") {
		return "GiB/s"
	}
	return "kIOPS"
}

// invalid records a reason the phase is invalid, also as a
// "; ERROR INVALID" line of its section.
func (r *PhaseResult) invalid(why Reason) {
	r.Invalid = append(r.Invalid, why)
	r.Entries = append(r.Entries, entry{Invalid: &r.Invalid[len(r.Invalid)-1]})
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

// pairLine is IO500's PRINT_PAIR: the key left-aligned in 15 columns.
func pairLine(w io.Writer, key, val string) {
	fmt.Fprintf(w, "%-15s = %s\n", key, val)
}

// stamp is IO500's timestamp in result.txt, local time.
func stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05") }

// invalidSuffix is " [INVALID]" or "".
func invalidSuffix(bad bool) string {
	if bad {
		return " [INVALID]"
	}
	return ""
}

// WriteResultTxt writes result.txt as IO500 does: [run], one section per
// phase, [SCORE].
func WriteResultTxt(w io.Writer, o *Outcome) error {
	var b strings.Builder
	b.WriteString("[run]\n")
	pairLine(&b, "procs", fmt.Sprint(o.Procs))
	pairLine(&b, "version", o.Version)
	pairLine(&b, "config-hash", hashHex(o.ConfigHash))
	pairLine(&b, "result-dir", o.ResultDir)
	pairLine(&b, "mode", "standard")
	// Why the run is invalid, in plain words, at the top: keys IO500's
	// tools skip (its verifier reads only version, config-hash, the
	// scores and [SCORE]), numbered so that an INI reader sees no key
	// twice.
	for i, why := range o.reasons() {
		pairLine(&b, fmt.Sprintf("invalid-%d", i+1), why.Plain)
	}
	if o.Verbosity > 0 {
		fmt.Fprintf(&b, "; START %s\n", stamp(o.Start))
	}
	for _, r := range o.RunInvalid {
		fmt.Fprintf(&b, "; ERROR INVALID %s\n", r.IO500)
	}
	b.WriteString("\n")
	for i := range o.Phases {
		p := &o.Phases[i]
		fmt.Fprintf(&b, "\n[%s]\n", p.phase.Name)
		if p.PauseFile != "" {
			if o.Verbosity > 0 {
				pairLine(&b, "t_pause", stamp(p.PauseAt))
			}
			fmt.Fprintf(&b, "; Checking for pause file %s\n", p.PauseFile)
		}
		if o.Verbosity > 0 {
			pairLine(&b, "t_start", stamp(p.Start))
		}
		if p.Exe != "" {
			pairLine(&b, "exe", p.Exe)
		}
		for _, e := range p.Entries {
			if e.Invalid != nil {
				fmt.Fprintf(&b, "; ERROR INVALID %s\n", e.Invalid.IO500)
				continue
			}
			pairLine(&b, e.Key, e.Val)
		}
		if p.phase.Tool != toolTimestamp {
			pairLine(&b, "score", cfloat(p.Score))
		}
		if o.Verbosity > 0 {
			pairLine(&b, "t_delta", fmt.Sprintf("%.4f", p.Seconds))
			pairLine(&b, "t_end", stamp(p.End))
		}
	}
	b.WriteString("\n[SCORE]\n")
	pairLine(&b, "MD", cfloat(o.Score.MD))
	pairLine(&b, "BW", cfloat(o.Score.BW))
	pairLine(&b, "SCORE", cfloat(o.Score.Total)+invalidSuffix(!o.Valid()))
	pairLine(&b, "hash", hashHex(o.ScoreHash))
	if o.Verbosity > 0 {
		fmt.Fprintf(&b, "; END %s\n", stamp(o.End))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// resultLine is a phase's console line: "[RESULT]" (or blank for the
// timestamp), the name, score, unit, time and " [INVALID]".
func resultLine(p *PhaseResult) string {
	tag := "[RESULT]"
	if p.phase.Group == noScore {
		tag = "[      ]"
	}
	return fmt.Sprintf("%s %20s %15s %s : time %.3f seconds%s\n", tag, p.phase.Name, cfloat(p.Score), p.unit(), p.Seconds, invalidSuffix(len(p.Invalid) > 0))
}

// scoreLine is the console's "[SCORE ]" line.
func scoreLine(o *Outcome) string {
	return fmt.Sprintf("[SCORE ] Bandwidth %s GiB/s : IOPS %s kiops : TOTAL %s%s\n",
		cfloat(o.Score.BW), cfloat(o.Score.MD), cfloat(o.Score.Total), invalidSuffix(!o.Valid()))
}

// versionLine is the console's first line.
func versionLine(version string) string { return "IO500 version " + version + " (standard)\n" }

// WriteSummary writes result_summary.txt: the reasons the run is invalid
// in plain words first (when it is), then the console's lines: the
// version, every phase's result line, the score line.
func WriteSummary(w io.Writer, o *Outcome) error {
	var b strings.Builder
	b.WriteString(Verdict(o))
	b.WriteString(versionLine(o.Version))
	for i := range o.Phases {
		b.WriteString(resultLine(&o.Phases[i]))
	}
	b.WriteString(scoreLine(o))
	_, err := io.WriteString(w, b.String())
	return err
}
