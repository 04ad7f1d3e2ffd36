package report

// The tables of an IO500 run's archive (hpcbench io500).
const (
	// IO500PhasesTable has a row per phase: label "phase"; metrics "bw"
	// (GiB/s, the ior phases' score), "md" (kIOPS, the mdtest and find
	// phases' score), "time" (s), find's "found" and "total", and
	// "invalid", the number of rules the phase broke.
	IO500PhasesTable = "io500 phases"
	// IO500ScoreTable has one row: "bw" (GiB/s), "md" (kIOPS) and
	// "score", IO500's geometric means and their product's root; its
	// notes say why the run is invalid.
	IO500ScoreTable = "io500 score"
)
