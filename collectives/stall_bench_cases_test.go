package collectives

// stallBenchCases are BenchmarkSmallShm's option sets.
var stallBenchCases = []struct {
	name string
	opts Options
}{
	{"stall=off", Options{}},
}
