package main

import (
	"fmt"
	"os"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
)

// notesFlag is the option of the benchmarks whose runs have per-rank
// tables (command.notes).
const notesFlag = "notes"

// notesHelp is the help section of --notes.
const notesHelp = `Notes:
      --notes   print the run's notes (a phase whose slowest rank ended 10% and
                100 ms or more after the fastest, naming both and their
                hosts) on stdout after the report, under "Notes:", as the
                human tables do; by default they go to stderr, one line each,
                so that stdout keeps the C tool's layout byte for byte. The
                archive keeps every phase's per-rank figures either way
`

// splitNotes removes --notes (also -notes, --notes=true|false) from args
// and sets or unsets pipeline.NotesEnv for this process, which the run
// pipeline reads on rank 0.
func splitNotes(name string, args []string) ([]string, error) {
	var on, given bool
	rest, err := cliflag.SplitSwitch(args, notesFlag, func(v bool) error {
		on, given = v, true
		return nil
	})
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	if given {
		err = setOptionEnv(name, notesFlag, pipeline.NotesEnv, on, "1")
	}
	return rest, err
}

// setOptionEnv sets env to value for this process when the option flag of
// command name is on, and unsets it when it is off: how the options split
// off before a command's own parser (--progress, --notes) reach the run
// pipeline of every rank the command starts.
func setOptionEnv(name, flag, env string, on bool, value string) error {
	var err error
	if on {
		err = os.Setenv(env, value)
	} else {
		err = os.Unsetenv(env)
	}
	if err != nil {
		return fmt.Errorf("%s: --%s: set %s: %w", name, flag, env, err)
	}
	return nil
}
