// Package exitcode holds the exit statuses every hpcbench command ends
// with, in one place: the launcher's, a rank's and a tool's (compare,
// report, plot, dfs).
package exitcode

// The exit statuses. A process stopped by signal N exits Signal+N, as a
// shell reports it.
const (
	// OK is success.
	OK = 0
	// Failed is a benchmark or verification failure, or any error
	// after the options were accepted (I/O, PMI, a peer's death).
	Failed = 1
	// Usage is invalid or unsupported input, refused before any work.
	Usage = 2
	// Watchdog is the status of a job the watchdog ended, the
	// launcher's or a rank's own (a rank stalled or stopped past the
	// deadline).
	Watchdog = 123
	// Timeout is hpcbench launch --timeout's, as timeout(1)'s.
	Timeout = 124
	// Signal is added to a signal's number: a process stopped by
	// SIGTERM (15) exits 143.
	Signal = 128
)
