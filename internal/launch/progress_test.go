package launch

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpcbench/hpcbench/pmi"
)

// phaseLog records what a jobProgress shows.
type phaseLog []string

func (l *phaseLog) Phase(name string, iter int, done, total int64) {
	*l = append(*l, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
}

// TestJobProgress: the job-wide display follows rank 0's reports, with
// their amounts, among the notes of every rank (the other ranks' phase
// changes, inits, barriers, finalizes): a report without an amount shows
// the phase with no total, and nothing moves after rank 0's finalize.
func TestJobProgress(t *testing.T) {
	phase := func(rank int, name string, iter int, done, total int64) pmi.Note {
		return pmi.Note{Rank: rank, Kind: pmi.NotePhase, Phase: name, Iter: iter, Amount: done >= 0, Done: max(done, 0), Total: total}
	}
	notes := []pmi.Note{
		{Rank: 1, Kind: pmi.NoteInit},
		{Rank: 0, Kind: pmi.NoteInit},
		{Rank: 0, Kind: pmi.NoteBarrier},
		phase(1, "write", 0, -1, 0), // another rank's phase change: not shown
		phase(0, "write", 0, 0, 1<<30),
		phase(2, "write", 0, -1, 0),
		phase(0, "write", 0, 412<<20, 1<<30),
		phase(1, "read", 0, -1, 0), // ahead of rank 0: not shown
		phase(0, "write", 0, 1<<30, 1<<30),
		phase(0, "read", 0, 0, 1<<30),
		phase(0, "file creation", 1, -1, 0), // no amount
		phase(0, "file creation", 1, 250, 1000),
		{Rank: 1, Kind: pmi.NoteFinalize},
		phase(0, "file removal", 1, 10, 1000),
		{Rank: 0, Kind: pmi.NoteFinalize},
		phase(0, "late", 0, 1, 2), // after finalize
	}
	var log phaseLog
	p := &jobProgress{sink: &log}
	for _, n := range notes {
		p.note(n)
	}
	want := phaseLog{
		"write 0 0/1073741824",
		"write 0 432013312/1073741824",
		"write 0 1073741824/1073741824",
		"read 0 0/1073741824",
		"file creation 1 0/0",
		"file creation 1 250/1000",
		"file removal 1 10/1000",
	}
	if !slices.Equal(log, want) {
		t.Errorf("shown:\n%q\nwant\n%q", log, want)
	}
	var none *jobProgress // a launcher that shows nothing
	none.note(phase(0, "write", 0, 1, 2))
}
