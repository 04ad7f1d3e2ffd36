package io500

import "math"

// Score is the IO500 score of a run: the geometric means of the bandwidth
// (GiB/s) and metadata (kIOPS) phases and the square root of their
// product.
type Score struct {
	BW, MD, Total float64
}

// ComputeScore computes the score as IO500's calc_score does: per group,
// the product of the phase scores raised to one over their number, where
// a phase scoring 0 or less is left out (not counted as zero) and a group
// with no phase left is 0; the total is the square root of BW × MD.
func ComputeScore(results []PhaseResult) Score {
	mean := func(g group) float64 {
		prod, n := 1.0, 0
		for _, r := range results {
			if r.phase.Group != g || r.Score <= 0 {
				continue
			}
			prod *= r.Score
			n++
		}
		if n == 0 {
			return 0
		}
		return math.Pow(prod, 1/float64(n))
	}
	s := Score{MD: mean(groupMD), BW: mean(groupBW)}
	s.Total = math.Sqrt(s.MD * s.BW)
	return s
}
