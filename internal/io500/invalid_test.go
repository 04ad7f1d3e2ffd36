package io500

import (
	"strings"
	"testing"
)

// TestInvalidReasons checks that each of IO500's invalidity reasons is
// detected and worded as IO500 words it, with a plain explanation.
func TestInvalidReasons(t *testing.T) {
	ph := func(name string) phase {
		for _, p := range standardPhases {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no phase %s", name)
		return phase{}
	}
	plan := &Plan{Stonewall: 300, MinWrite: 300}
	short := &Plan{Stonewall: 2, MinWrite: 300}
	for _, c := range []struct {
		name    string
		plan    *Plan
		r       PhaseResult
		dry     bool
		want    []string // IO500's wording, in order
		noPlain bool
	}{
		{"valid write", plan, PhaseResult{phase: ph("ior-easy-write"), Score: 1, Seconds: 301}, false, nil, false},
		{"below stonewall", short, PhaseResult{phase: ph("mdtest-hard-write"), Score: 1, Seconds: 1.5},
			false, []string{"Runtime of phase (1.500000) is below stonewall time. This shouldn't happen!", "Runtime is smaller than expected minimum runtime"}, false},
		{"below the minimum", short, PhaseResult{phase: ph("ior-hard-write"), Score: 1, Seconds: 3},
			false, []string{"Runtime is smaller than expected minimum runtime"}, false},
		{"zero score", plan, PhaseResult{phase: ph("mdtest-easy-stat"), Score: 0, Seconds: 1}, false, []string{"Resulting score shouldn't be 0.0"}, false},
		{"dry run skips the score checks", plan, PhaseResult{phase: ph("mdtest-easy-stat")}, true, nil, false},
		{"timestamp has no score", plan, PhaseResult{phase: ph("timestamp")}, false, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			(&Benchmark{DryRun: c.dry}).check(c.plan, &r)
			if len(r.Invalid) != len(c.want) {
				t.Fatalf("reasons %v, want %q", r.Invalid, c.want)
			}
			for i, w := range c.want {
				if r.Invalid[i].IO500 != w || !strings.HasPrefix(r.Invalid[i].Plain, r.phase.Name+": ") {
					t.Errorf("reason %d: %+v, want IO500's %q and a plain sentence naming the phase", i, r.Invalid[i], w)
				}
			}
		})
	}
	// The reasons found by the phases and the run, with IO500's words.
	for _, c := range []struct {
		r           Reason
		io500       string
		plainHasAll []string
	}{
		{invalidStonewall(2, 300), "stonewall-time 2s != 300s", []string{"stonewall-time is 2 s", "require 300 s"}},
		{invalidStonewall(300, 30), "stonewall-time 300s != 30s", []string{"require 30 s"}},
		{invalidDryRun(), "DRY RUN MODE ACTIVATED", []string{"dry run"}},
		{invalidPause(), "PAUSING BETWEEN RUNS ACTIVATED", []string{"pause-dir"}},
		{invalidFilesPerDir(), "files-per-dir is set", []string{"files-per-dir", "without a stonewall"}},
		{invalidIORErrors("ior-hard-read", 3), "Errors (3) occured during phase in IOR. This invalidates your run.", []string{"ior-hard-read", "3 errors"}},
		{invalidWriteShort("ior-easy-write", 0.055987, 2, 0.04), "Write phase needed 0.055987s instead of stonewall 2s. Stonewall was hit at 0.0s", []string{"before the stonewall of 2 s"}},
		{invalidFindNothing(), "Find didn't find anything, this is likely invalid.", []string{"no file matched"}},
	} {
		if c.r.IO500 != c.io500 {
			t.Errorf("IO500's words %q, want %q", c.r.IO500, c.io500)
		}
		for _, w := range c.plainHasAll {
			if !strings.Contains(c.r.Plain, w) {
				t.Errorf("plain words %q lack %q", c.r.Plain, w)
			}
		}
	}
	// The verdict says every reason, run's first, and nothing for a valid run.
	o := &Outcome{RunInvalid: []Reason{invalidStonewall(2, 300)}, Phases: []PhaseResult{{phase: ph("find")}}}
	o.Phases[0].invalid(invalidFindNothing())
	v := Verdict(o)
	if !strings.HasPrefix(v, "This IO500 run is INVALID") || strings.Index(v, "stonewall-time") > strings.Index(v, "no file matched") {
		t.Errorf("verdict %q", v)
	}
	if Verdict(&Outcome{}) != "" {
		t.Error("a valid run has a verdict")
	}
}

// TestPlainWordsAreINIValues: the plain reasons are values of result.txt's
// [run]: no ';' or '#', which IO500's INI grammar reads as a comment.
func TestPlainWordsAreINIValues(t *testing.T) {
	for _, r := range []Reason{invalidStonewall(2, 300), invalidDryRun(), invalidPause(), invalidFilesPerDir(), invalidIORErrors("p", 2),
		invalidWriteShort("p", 1, 2, 0), invalidBelowStonewall("p", 1, 2), invalidZeroScore("p"), invalidMinRuntime("p", 1, 300), invalidFindNothing()} {
		if strings.ContainsAny(r.Plain, "#;") {
			t.Errorf("%q has a comment character", r.Plain)
		}
	}
}
