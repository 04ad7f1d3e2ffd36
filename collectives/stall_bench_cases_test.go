package collectives

import "time"

// stallBenchCases are BenchmarkSmallShm's option sets.
var stallBenchCases = []struct {
	name string
	opts Options
}{
	{"stall=off", Options{}},
	{"stall=60s", Options{StallTimeout: 60 * time.Second}},
}
