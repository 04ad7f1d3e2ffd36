package run

import (
	"fmt"
	"io"
)

// NotesEnv, set to anything but "" or "0" (hpcbench ior|mdtest|coll
// --notes sets it), asks rank 0 to print the run's notes (the stragglers
// worth a look) on stdout after the report, under "Notes:", rather than
// on stderr; the archive keeps them either way.
const NotesEnv = "HPCBENCH_NOTES"

// notesOnStdout reports whether NotesEnv asks for the notes on stdout.
func notesOnStdout(getenv func(string) (string, bool)) bool {
	v, _ := orLookupEnv(getenv)(NotesEnv)
	return v != "" && v != "0"
}

// writeNotes prints the run named name's notes: on stdout under "Notes:"
// when onStdout, else one "hpcbench: NAME: note: ..." line each on
// stderr. No notes, no output.
func writeNotes(stdout, stderr io.Writer, name string, notes []string, onStdout bool) {
	if len(notes) == 0 {
		return
	}
	if onStdout {
		fmt.Fprint(stdout, "\nNotes:\n")
		for _, n := range notes {
			fmt.Fprintln(stdout, n)
		}
		return
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "hpcbench: %s: note: %s\n", name, n)
	}
}
