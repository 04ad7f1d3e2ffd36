//go:build race

package collectives

// raceEnabled is true when the tests run under the race detector, which
// makes the 1 MiB cases much slower; see sizesFor.
const raceEnabled = true
