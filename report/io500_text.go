package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// IO500Run is an IO500 run as its files show it: what WriteIO500ResultTxt
// and WriteIO500Summary render (hpcbench io500 builds it; WriteIO500
// rebuilds its summary part from an archive).
type IO500Run struct {
	Procs int
	// Verbosity is [global] verbosity: at 0, result.txt has no times.
	Verbosity                                 int64
	Version, ConfigHash, ScoreHash, ResultDir string
	Start, End                                time.Time
	// RunInvalid are the run's own reasons, in IO500's words
	// ("stonewall-time 2s != 300s"); Why every reason of the run and its
	// phases, in plain words, the run's first. A run is valid when Why is
	// empty.
	RunInvalid, Why []string
	Phases          []IO500Phase
	// BW (GiB/s), MD (kIOPS) and Score, IO500's.
	BW, MD, Score float64
}

// IO500Phase is one phase of an IO500Run.
type IO500Phase struct {
	Name string
	// Scored phases count in BW or MD: their console line says
	// "[RESULT]", the others' "[      ]". HasScore: result.txt has the
	// phase's score line (every phase but the timestamp).
	Scored, HasScore bool
	// Exe is the phase's command line ("" for none).
	Exe string
	// Lines are the phase's own lines between exe and score.
	Lines []IO500Line
	// Score is GiB/s (the ior phases, named "i...") or kIOPS; Seconds
	// the phase's runtime.
	Score, Seconds float64
	Start, End     time.Time
	// PauseFile is the [debug] pause-dir file looked for before the
	// phase, at PauseAt ("" without).
	PauseFile string
	PauseAt   time.Time
	Invalid   bool
}

// IO500Line is a key = value line of a phase, or (Invalid set) a
// "; ERROR INVALID" line in IO500's words.
type IO500Line struct {
	Key, Val, Invalid string
}

// Valid reports whether the run broke no rule.
func (r *IO500Run) Valid() bool { return len(r.Why) == 0 }

// CFloat prints v as C's printf("%f"), as IO500 prints and hashes its
// scores.
func CFloat(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// io500Pair is IO500's PRINT_PAIR: the key left-aligned in 15 columns.
func io500Pair(b *strings.Builder, key, val string) { fmt.Fprintf(b, "%-15s = %s\n", key, val) }

// io500Stamp is IO500's timestamp in result.txt, local time.
func io500Stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05") }

func invalidSuffix(bad bool) string {
	if bad {
		return " [INVALID]"
	}
	return ""
}

// WriteIO500ResultTxt writes result.txt as IO500 does ([run], one section
// per phase, [SCORE]), and why the run is invalid, in plain words, at the
// top of [run]: invalid-1, invalid-2 ... (keys IO500's verifier skips,
// numbered so that an INI reader sees no key twice).
func WriteIO500ResultTxt(w io.Writer, r *IO500Run) error {
	var b strings.Builder
	b.WriteString("[run]\n")
	io500Pair(&b, "procs", strconv.Itoa(r.Procs))
	io500Pair(&b, "version", r.Version)
	io500Pair(&b, "config-hash", r.ConfigHash)
	io500Pair(&b, "result-dir", r.ResultDir)
	io500Pair(&b, "mode", "standard")
	for i, why := range r.Why {
		io500Pair(&b, fmt.Sprintf("invalid-%d", i+1), why)
	}
	if r.Verbosity > 0 {
		fmt.Fprintf(&b, "; START %s\n", io500Stamp(r.Start))
	}
	for _, why := range r.RunInvalid {
		fmt.Fprintf(&b, "; ERROR INVALID %s\n", why)
	}
	b.WriteString("\n")
	for i := range r.Phases {
		p := &r.Phases[i]
		fmt.Fprintf(&b, "\n[%s]\n", p.Name)
		if p.PauseFile != "" {
			if r.Verbosity > 0 {
				io500Pair(&b, "t_pause", io500Stamp(p.PauseAt))
			}
			fmt.Fprintf(&b, "; Checking for pause file %s\n", p.PauseFile)
		}
		if r.Verbosity > 0 {
			io500Pair(&b, "t_start", io500Stamp(p.Start))
		}
		if p.Exe != "" {
			io500Pair(&b, "exe", p.Exe)
		}
		for _, l := range p.Lines {
			if l.Invalid != "" {
				fmt.Fprintf(&b, "; ERROR INVALID %s\n", l.Invalid)
				continue
			}
			io500Pair(&b, l.Key, l.Val)
		}
		if p.HasScore {
			io500Pair(&b, "score", CFloat(p.Score))
		}
		if r.Verbosity > 0 {
			io500Pair(&b, "t_delta", fmt.Sprintf("%.4f", p.Seconds))
			io500Pair(&b, "t_end", io500Stamp(p.End))
		}
	}
	b.WriteString("\n[SCORE]\n")
	io500Pair(&b, "MD", CFloat(r.MD))
	io500Pair(&b, "BW", CFloat(r.BW))
	io500Pair(&b, "SCORE", CFloat(r.Score)+invalidSuffix(!r.Valid()))
	io500Pair(&b, "hash", r.ScoreHash)
	if r.Verbosity > 0 {
		fmt.Fprintf(&b, "; END %s\n", io500Stamp(r.End))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IO500ResultLine is a phase's console line: "[RESULT]" (blank for an
// unscored phase), the name, score, unit, time and " [INVALID]".
func IO500ResultLine(p *IO500Phase) string {
	tag, unit := "[RESULT]", "kIOPS"
	if !p.Scored {
		tag = "[      ]"
	}
	if strings.HasPrefix(p.Name, "i") {
		unit = "GiB/s"
	}
	return fmt.Sprintf("%s %20s %15s %s : time %.3f seconds%s\n", tag, p.Name, CFloat(p.Score), unit, p.Seconds, invalidSuffix(p.Invalid))
}

// IO500ScoreLine is the console's "[SCORE ]" line.
func IO500ScoreLine(r *IO500Run) string {
	return fmt.Sprintf("[SCORE ] Bandwidth %s GiB/s : IOPS %s kiops : TOTAL %s%s\n",
		CFloat(r.BW), CFloat(r.MD), CFloat(r.Score), invalidSuffix(!r.Valid()))
}

// IO500VersionLine is the console's first line.
func IO500VersionLine(version string) string { return "IO500 version " + version + " (standard)\n" }

// IO500Verdict is the plain-words statement of an invalid run, a reason a
// line; "" for a valid run.
func IO500Verdict(why []string) string {
	if len(why) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("This IO500 run is INVALID (it cannot be submitted), because:\n")
	for _, w := range why {
		fmt.Fprintf(&b, "  - %s\n", w)
	}
	return b.String()
}

// WriteIO500Summary writes result_summary.txt: the verdict first, when
// the run is invalid, then the console's lines: the version, every
// phase's result line, the score line.
func WriteIO500Summary(w io.Writer, r *IO500Run) error {
	var b strings.Builder
	b.WriteString(IO500Verdict(r.Why))
	b.WriteString(IO500VersionLine(r.Version))
	for i := range r.Phases {
		b.WriteString(IO500ResultLine(&r.Phases[i]))
	}
	b.WriteString(IO500ScoreLine(r))
	_, err := io.WriteString(w, b.String())
	return err
}

// IO500Verification is what `io500 CONFIG --verify result.txt` found:
// the hashes the file holds and those it should hold.
type IO500Verification struct {
	// FileVersion is the file's version; Version the verifier's.
	FileVersion, Version string
	// ConfigHash and ScoreHash are the file's; WantConfig the
	// configuration's, WantScore the hash of the file's scores.
	ConfigHash, ScoreHash, WantConfig, WantScore string
	// InvalidRun: the score hash is that of an invalid run.
	InvalidRun bool
}

// WriteIO500Verification writes the verifier's report as IO500's does:
// the file's version, its hashes, what does not match, and [OK] (or "[OK]
// But this is an invalid run!").
func WriteIO500Verification(w io.Writer, v *IO500Verification) error {
	var b strings.Builder
	fmt.Fprintf(&b, "result file ver = %s\n", v.FileVersion)
	if v.FileVersion != v.Version {
		fmt.Fprintf(&b, "WARNING: Verify the output with the matching version of the benchmark (this is %s).\n", v.Version)
	}
	b.WriteString("[run]\n")
	io500Pair(&b, "config-hash", v.ConfigHash)
	io500Pair(&b, "score-hash", v.ScoreHash)
	bad := false
	if v.ConfigHash != v.WantConfig {
		fmt.Fprintf(&b, "ERROR: Configuration hash expected: %s read: %s\n", v.WantConfig, v.ConfigHash)
		bad = true
	}
	switch {
	case v.ScoreHash == v.WantScore:
		if !bad {
			b.WriteString("\n[OK]\n")
		}
	case v.InvalidRun:
		b.WriteString("\n[OK] But this is an invalid run!\n")
	default:
		fmt.Fprintf(&b, "\nERROR: Score hash expected: %q read: %q\n", v.WantScore, v.ScoreHash)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
