package main

import (
	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/progress"
)

// The progress options of the commands that run a benchmark
// (command.progress), and of launch, which draws the job's progress
// itself.
const (
	progressFlag         = "progress"
	progressIntervalFlag = "progress-interval"
)

// progressHelp is the help section of --progress.
const progressHelp = `Progress:
      --progress          rank 0 writes a plain line on stderr every 10s where
                          stderr is not a terminal (on one it draws a bar), under
                          any launcher: phase, iteration, amount done, rate, ETA
                          (as fio's --eta=always); never on stdout. Under
                          hpcbench launch, which shows the job's progress itself
                          (launch --progress), the ranks print none
      --progress-interval DUR
                          a line every DUR (1s to 1h) instead; implies
                          --progress. Both set HPCBENCH_PROGRESS, which a user
                          may export for every rank instead
`

// splitProgress removes --progress and --progress-interval DUR from args
// (also spelt with one dash, up to a "--") and, when they ask for lines,
// sets progress.EnvInterval for this process, which the run pipeline
// reads on rank 0; --progress=false unsets it. A bad value is a usage
// error naming the option and its range, before any work.
func splitProgress(name string, args []string) ([]string, error) {
	var on, given bool
	interval := progress.DefaultLineInterval
	rest, err := cliflag.SplitSwitch(args, progressFlag, func(v bool) error {
		on, given = v, true
		return nil
	})
	if err == nil {
		rest, err = cliflag.SplitValue(rest, progressIntervalFlag, "a duration from 1s to 1h", func(s string) error {
			d, err := progress.ParseLineInterval(s)
			if err != nil {
				return err
			}
			interval, on, given = d, true, true
			return nil
		})
	}
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	if given {
		err = setOptionEnv(name, progressFlag, progress.EnvInterval, on, interval.String())
	}
	return rest, err
}
