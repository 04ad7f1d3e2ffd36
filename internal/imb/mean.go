package imb

import "math"

// meanSeconds returns span seconds over n repetitions. The clock reads
// whole nanoseconds as float seconds, so a span or a sum of spans is
// a whole number of nanoseconds plus the noise of float subtraction;
// rounding it to that number first and dividing once (correctly rounded)
// gives the double nearest the true mean, which prints as its short
// decimal (98.2 ns over 10: 0.0000000982, not 0.00000009820000000000661).
func meanSeconds(span float64, n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return math.Round(span*1e9) / (float64(n) * 1e9)
}

// meanOfMeans returns the mean over ranks of each rank's mean time of
// reps repetitions, scaled by scale (IMB's t_avg), from the nanoseconds
// each mean stands for: one division of whole numbers, so the figure
// carries no noise of adding up doubles. A scale that is not positive
// counts as 1.
func meanOfMeans(times []float64, reps int, scale float64) float64 {
	if len(times) == 0 || reps <= 0 {
		return math.NaN()
	}
	if !(scale > 0) {
		scale = 1
	}
	var ns float64
	for _, t := range times {
		ns += math.Round(t / scale * float64(reps) * 1e9)
	}
	return ns * scale / (float64(len(times)) * float64(reps) * 1e9)
}
