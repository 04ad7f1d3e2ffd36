package imb

import (
	"runtime"
	"runtime/metrics"
)

// gcMetrics are what collectIfDue reads: the heap's goal (the size at
// which the next collection starts), its live bytes after the last one,
// and the bytes of objects in it now.
var gcMetrics = [...]string{"/gc/heap/goal:bytes", "/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes"}

// collectIfDue collects the garbage when more than half of what the heap
// may allocate before the runtime starts a collection is used, so that
// none starts in the timed loops that follow: a collection there would
// take a CPU from a peer rank (two ranks on two CPUs). Below that, the
// size's run, which allocates little, cannot reach the goal, and a forced
// collection per size would cost every rank its STW phases and the mark
// workers' wake-ups for nothing: on a host crowded with ranks (256 on 2
// CPUs) that is thousands of thread wake-ups per size over the job.
func collectIfDue() {
	v := readGCMetrics()
	if due(v[0], v[1], v[2]) {
		runtime.GC()
	}
}

// readGCMetrics reads gcMetrics; a name this runtime does not know reads 0.
func readGCMetrics() [len(gcMetrics)]uint64 {
	var s [len(gcMetrics)]metrics.Sample
	for i, name := range gcMetrics {
		s[i].Name = name
	}
	metrics.Read(s[:])
	var v [len(gcMetrics)]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return v
}

// due reports whether used bytes of heap have taken more than half of the
// headroom from live to goal.
func due(goal, live, used uint64) bool {
	return goal <= live || used >= live+(goal-live)/2
}
