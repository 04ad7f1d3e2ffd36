package config

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/ior/twophase"
)

// validateCollective refuses what -c cannot do: random offsets, as IOR's
// MPIIO backend refuses them ("random offset not available with
// collective MPIIO"), and everything that lets a rank stop or pause on its
// own in the middle of a phase, which a collective phase, whose ranks move
// each other's data round by round, cannot (IOR hangs there: its issue
// #210).
func (o *Options) validateCollective() error {
	if !o.Collective {
		return nil
	}
	switch {
	case o.RandomOffset > 0:
		return errors.New("-c with -z: random offsets are not available with collective I/O (IOR's MPIIO backend refuses them too)")
	case o.DeadlineForStonewalling > 0:
		return errors.New("-c with -D: a collective phase cannot stop at a deadline: its ranks move each other's data round by round")
	case o.UntilSteady.On():
		return errors.New("-c with --until-steady: a collective phase cannot stop early: its ranks move each other's data round by round")
	case o.StoneWallingWearOutIterations > 0:
		return errors.New("-c with -O stoneWallingWearOutIterations: a collective phase moves every rank's whole access")
	case o.MinTimeDuration > 0:
		return errors.New("-c with -O minTimeDuration: a collective phase moves every rank's whole access once")
	case o.InterIODelay > 0:
		return errors.New("-c with -O interIODelay: collective I/O moves data in rounds of cb_buffer_size, not one transfer at a time")
	}
	return nil
}

// The values of -O collectiveCall.
const (
	// CallPhase makes one collective call per phase, over the whole of
	// each rank's access.
	CallPhase = "phase"
	// CallTransfer makes one collective call per transfer, as IOR calls
	// MPI_File_write_at_all (the default).
	CallTransfer = "transfer"
)

// callValue is -O collectiveCall: phase or transfer.
type callValue struct{ p *string }

func (v callValue) String() string { return *v.p }

func (v callValue) Set(s string) error {
	switch strings.ToLower(s) {
	case CallPhase:
		*v.p = CallPhase
	case CallTransfer:
		*v.p = CallTransfer
	default:
		return fmt.Errorf("%q: want phase (one collective call over each rank's whole access) or transfer (one per transfer, as IOR)", s)
	}
	return nil
}

func (v callValue) Type() string { return "phase|transfer" }

// hintValue is an option that sets one of -c's hints (--cb_nodes,
// -O cb_buffer_size=4m): checked when given, applied after the
// environment and the hints file.
type hintValue struct {
	o   *Options
	key string
}

func (v hintValue) String() string { return "" }

func (v hintValue) Set(s string) error {
	h := twophase.DefaultHints()
	if err := h.Set(v.key, s); err != nil {
		return err
	}
	v.o.hintArgs = append(v.o.hintArgs, [2]string{v.key, s})
	return nil
}

func (v hintValue) Type() string { return "hint" }

// hintUsage describes each hint option for the help.
var hintUsage = map[string]string{
	twophase.KeyNodes:      "-c: the most aggregators (default: one per host)",
	twophase.KeyBufferSize: "-c: bytes an aggregator moves per round (default 16m)",
	twophase.KeyConfigList: "-c: aggregators per host, *:N or *:* (default *:1)",
	twophase.KeyWrite:      "-c: collective writes: enable, disable or automatic (when the ranks' accesses interleave; the default)",
	twophase.KeyRead:       "-c: collective reads and -W checks: enable, disable or automatic (the default)",
	twophase.KeyStriping:   "-c: file domains end on multiples of this size (default 0: anywhere; 4k with --posix.odirect)",
}

// resolveHints sets o.Hints: ROMIO's defaults, the IOR_HINT__MPI__
// variables of environ, the hints file (opened with open), then the hint
// options, in the order IOR and MPI_Info_set would leave them. Any error
// names where the hint came from.
func (o *Options) resolveHints(environ []string, open func(string) (io.ReadCloser, error)) error {
	h := twophase.DefaultHints()
	if err := h.ApplyEnv(environ); err != nil {
		return err
	}
	if o.HintsFileName != "" {
		f, err := open(o.HintsFileName)
		if err != nil {
			return fmt.Errorf("-U %s: %w", o.HintsFileName, err)
		}
		err = twophase.ParseHintsFile(f, &h)
		f.Close()
		if err != nil {
			return fmt.Errorf("-U %s: %w", o.HintsFileName, err)
		}
	}
	for _, kv := range o.hintArgs {
		if err := h.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("--%s: %w", kv[0], err)
		}
	}
	o.Hints = h
	if o.Collective && AlignedTransfers(o.BackendOptions) {
		for _, v := range []struct {
			key string
			n   int64
		}{{twophase.KeyBufferSize, h.BufferSize}, {twophase.KeyStriping, h.StripingUnit}} {
			if v.n%aiori.Align != 0 {
				return fmt.Errorf("-c with -a %s's aligned transfers (--posix.odirect): %s %d: want a multiple of %d bytes",
					o.Backend.Name, v.key, v.n, aiori.Align)
			}
		}
	}
	return nil
}

// AlignedTransfers reports whether the backend's options want every
// transfer aligned to aiori.Align (--posix.odirect), as their
// TransferChecker says of an unaligned one.
func AlignedTransfers(bo aiori.Options) bool {
	tc, ok := bo.(aiori.TransferChecker)
	return ok && tc.CheckTransfer(1, 1) != nil
}
