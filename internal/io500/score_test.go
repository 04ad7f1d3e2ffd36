package io500

import (
	"math"
	"testing"

	"github.com/hpcbench/hpcbench/report"
)

// scored returns the standard phases with the given scores, in order.
func scored(scores map[string]float64) []PhaseResult {
	var rs []PhaseResult
	for _, ph := range standardPhases {
		rs = append(rs, PhaseResult{phase: ph, Score: scores[ph.Name]})
	}
	return rs
}

// ioScores are the phase scores of the IO500 application's run on
// testdata/short.ini (testdata/c-result.txt).
var ioScores = map[string]float64{
	"ior-easy-write": 2.232666, "mdtest-easy-write": 25.656138, "ior-hard-write": 2.432401,
	"mdtest-hard-write": 66.793598, "find": 764.072277, "ior-easy-read": 3.332092,
	"mdtest-easy-stat": 305.506883, "ior-hard-read": 2.575422, "mdtest-hard-stat": 195.311013,
	"mdtest-easy-delete": 21.907261, "mdtest-hard-read": 8.393871, "mdtest-hard-delete": 193.779277,
}

// TestScoreMatchesIO500 computes the score and its hash from the IO500
// application's phase scores and compares with its [SCORE] section.
func TestScoreMatchesIO500(t *testing.T) {
	o := &Outcome{Version: "io500-isc26_v2-26-g02091cf254d8", Phases: scored(ioScores),
		RunInvalid: []Reason{invalidStonewall(2, 300)}}
	o.finish()
	for _, c := range []struct{ name, got, want string }{
		{"MD", report.CFloat(o.Score.MD), "85.228187"},
		{"BW", report.CFloat(o.Score.BW), "2.612799"},
		{"SCORE", report.CFloat(o.Score.Total), "14.922606"},
		{"hash", hashHex(o.ScoreHash), "27E8361"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, IO500 says %s", c.name, c.got, c.want)
		}
	}
}

func TestScoreFormula(t *testing.T) {
	geo := func(v ...float64) float64 {
		p := 1.0
		for _, x := range v {
			p *= x
		}
		return math.Pow(p, 1/float64(len(v)))
	}
	for _, c := range []struct {
		name   string
		scores map[string]float64
		bw, md float64
	}{
		{"all phases", map[string]float64{"ior-easy-write": 4, "ior-hard-write": 1, "ior-easy-read": 2, "ior-hard-read": 8,
			"mdtest-easy-write": 10, "mdtest-hard-write": 10, "find": 10, "mdtest-easy-stat": 10, "mdtest-hard-stat": 10,
			"mdtest-easy-delete": 10, "mdtest-hard-read": 10, "mdtest-hard-delete": 1000}, geo(4, 1, 2, 8), geo(10, 10, 10, 10, 10, 10, 10, 1000)},
		// IO500's quirk: a phase scoring 0 or less is left out of the
		// geometric mean, not counted as zero.
		{"zero and negative left out", map[string]float64{"ior-easy-write": 4, "ior-hard-write": 0, "ior-easy-read": -1, "ior-hard-read": 16,
			"find": 100, "mdtest-easy-stat": 1}, geo(4, 16), geo(100, 1)},
		{"a group with nothing is 0", map[string]float64{"ior-easy-write": 4}, 4, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ComputeScore(scored(c.scores))
			if math.Abs(s.BW-c.bw) > 1e-12 || math.Abs(s.MD-c.md) > 1e-9 || math.Abs(s.Total-math.Sqrt(c.bw*c.md)) > 1e-9 {
				t.Errorf("score %+v, want BW %g MD %g total %g", s, c.bw, c.md, math.Sqrt(c.bw*c.md))
			}
		})
	}
}
