package io500

import (
	"fmt"

	"github.com/hpcbench/hpcbench/report"
)

// Reason is one rule a run broke: IO500's own words (its "; ERROR
// INVALID" line, without the newline) and what it means, in plain words.
type Reason struct {
	IO500, Plain string
}

// The reasons IO500 declares a run or a phase invalid, each with IO500's
// wording and a plain explanation. (IO500's "PFind returned with an error"
// has no counterpart: a find that fails here fails the run, naming the
// rank and the cause.)

func invalidStonewall(stonewall, minWrite int64) Reason {
	return Reason{
		IO500: fmt.Sprintf("stonewall-time %ds != %ds", stonewall, minWrite),
		Plain: fmt.Sprintf("[debug] stonewall-time is %d s, and the rules require %d s: every write and create phase was stopped after %d s instead of running for %d s.", stonewall, minWrite, stonewall, minWrite),
	}
}

func invalidDryRun() Reason {
	return Reason{IO500: "DRY RUN MODE ACTIVATED", Plain: "this was a dry run (--dry-run): no phase ran, nothing was measured."}
}

func invalidPause() Reason {
	return Reason{IO500: "PAUSING BETWEEN RUNS ACTIVATED", Plain: "[debug] pause-dir is set: the run may have paused between phases, which the rules forbid."}
}

func invalidFilesPerDir() Reason {
	return Reason{IO500: "files-per-dir is set", Plain: "[mdtest-hard] files-per-dir is set: mdtest-hard spread its files over several directories (mdtest -I) and ran without a stonewall, instead of one shared directory."}
}

func invalidIORErrors(phase string, n int64) Reason {
	return Reason{
		IO500: fmt.Sprintf("Errors (%d) occured during phase in IOR. This invalidates your run.", n),
		Plain: fmt.Sprintf("%s: IOR counted %d error%s (failed transfers, or data that read back wrong).", phase, n, plural(n)),
	}
}

func invalidWriteShort(phase string, seconds float64, stonewall int64, hit float64) Reason {
	return Reason{
		IO500: fmt.Sprintf("Write phase needed %fs instead of stonewall %ds. Stonewall was hit at %.1fs", seconds, stonewall, hit),
		Plain: fmt.Sprintf("%s: the write finished all its data in %.3f s, before the stonewall of %d s: give it more data (blockSize, segmentCount) so that it writes for the whole stonewall time.", phase, seconds, stonewall),
	}
}

func invalidBelowStonewall(phase string, seconds float64, stonewall int64) Reason {
	return Reason{
		IO500: fmt.Sprintf("Runtime of phase (%f) is below stonewall time. This shouldn't happen!", seconds),
		Plain: fmt.Sprintf("%s: the phase ran %.3f s, less than the stonewall time of %d s.", phase, seconds, stonewall),
	}
}

func invalidZeroScore(phase string) Reason {
	return Reason{IO500: "Resulting score shouldn't be 0.0", Plain: fmt.Sprintf("%s: the phase scored 0: it measured nothing.", phase)}
}

func invalidMinRuntime(phase string, seconds float64, minWrite int64) Reason {
	return Reason{
		IO500: "Runtime is smaller than expected minimum runtime",
		Plain: fmt.Sprintf("%s: a write or create phase must run at least %d s, and this one ran %.3f s.", phase, minWrite, seconds),
	}
}

func invalidFindNothing() Reason {
	return Reason{IO500: "Find didn't find anything, this is likely invalid.", Plain: "find: no file matched (-newer timestampfile -size 3901c -name \"*01*\"): mdtest-hard's files were not found."}
}

// Verdict is the plain-words statement of an invalid run, every reason
// on a line of its own, for the top of the output; "" for a valid run.
func Verdict(o *Outcome) string { return report.IO500Verdict(o.report().Why) }

// plural is "s" unless n is 1.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
