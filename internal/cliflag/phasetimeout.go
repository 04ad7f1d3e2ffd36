package cliflag

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The watchdog's --phase-timeout, which every benchmark takes (ior, mdtest,
// coll): how long a rank waits for a peer that makes no progress, at a
// barrier between phases or inside a collective, before it fails the run
// and aborts the job naming that peer. It works under any launcher, since
// the ranks themselves keep the deadline.
const (
	// PhaseTimeoutFlag is the flag's name.
	PhaseTimeoutFlag = "phase-timeout"
	// PhaseTimeoutEnv names the environment variable that gives the
	// flag's value when the command line does not: hpcbench launch sets
	// it from its own --phase-timeout.
	PhaseTimeoutEnv = "HPCBENCH_PHASE_TIMEOUT"
	// DefaultPhaseTimeout is the deadline when neither gives one.
	DefaultPhaseTimeout = 60 * time.Second
	// PhaseScale is how much longer than its own phase took a rank waits
	// at the barrier after it, under the default deadline: ranks slower
	// at a phase arrive later in proportion.
	PhaseScale = 2
	// DefaultStopDeadline is how long a rank may stay stopped (SIGSTOP,
	// SIGTSTP, a tracer) before the watchdog ends the job, when neither
	// gives a deadline: the launcher's, and the ranks' own under a
	// launcher that has none (job.Options.StopDeadline).
	DefaultStopDeadline = 10 * time.Second
	// MinPhaseTimeout and MaxPhaseTimeout bound a deadline other than
	// 0 (off).
	MinPhaseTimeout = 100 * time.Millisecond // as PhaseTimeoutUsage says
	MaxPhaseTimeout = 1000 * time.Hour
)

// PhaseTimeoutUsage returns the flag's help line; phases as for Stall.
func PhaseTimeoutUsage(phases bool) string {
	def := "60s"
	if phases {
		def = "60s, and at the barrier after a phase twice the time this rank's own phase took if longer"
	}
	return "stall deadline: fail the run when a rank waits this long for a peer that makes no progress, naming both " +
		"(default " + def + "; 0: off; 100ms to 1000h; $" + PhaseTimeoutEnv + ", which hpcbench launch --phase-timeout sets, gives the default)"
}

// ParsePhaseTimeout parses a --phase-timeout value: 0, or a Go duration in
// [MinPhaseTimeout, MaxPhaseTimeout]. Its errors do not name the flag.
func ParsePhaseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if s == "0" {
			return 0, nil
		}
		return 0, fmt.Errorf("%q is not a duration such as 30s or 2m", s)
	}
	if d != 0 && (d < MinPhaseTimeout || d > MaxPhaseTimeout) {
		return 0, fmt.Errorf("%v: want 0 (off) or a duration in [100ms, 1000h]", d) // MinPhaseTimeout, MaxPhaseTimeout
	}
	return d, nil
}

// PhaseTimeout is --phase-timeout's value (a pflag.Value): the deadline,
// and whether the command line or the environment gave it.
type PhaseTimeout struct {
	D     time.Duration
	Given bool
}

// String gives the deadline given, or "" (the help shows no default; the
// usage says what it is).
func (p *PhaseTimeout) String() string {
	if p == nil || !p.Given {
		return ""
	}
	return p.D.String()
}

// Set parses s (ParsePhaseTimeout).
func (p *PhaseTimeout) Set(s string) error {
	d, err := ParsePhaseTimeout(s)
	if err != nil {
		return err
	}
	p.D, p.Given = d, true
	return nil
}

// Type names the value in help text.
func (*PhaseTimeout) Type() string { return "duration" }

// FromEnv takes the deadline from PhaseTimeoutEnv when the command line
// gave none; getenv is os.LookupEnv or a test's. A bad value is an error
// naming the variable.
func (p *PhaseTimeout) FromEnv(getenv func(string) (string, bool)) error {
	if p.Given {
		return nil
	}
	s, ok := getenv(PhaseTimeoutEnv)
	if !ok || s == "" {
		return nil
	}
	if err := p.Set(s); err != nil {
		return fmt.Errorf("$%s: %w", PhaseTimeoutEnv, err)
	}
	return nil
}

// Stall returns the collectives.Options StallTimeout and StallScale the
// deadline stands for: a deadline given is the deadline everywhere; the
// default is DefaultPhaseTimeout, scaled by PhaseScale when phases is
// true (ior, mdtest: barriers between phases), not for coll, whose every
// call is a collective.
func (p *PhaseTimeout) Stall(phases bool) (time.Duration, float64) {
	if p.Given {
		return p.D, 0
	}
	if phases {
		return DefaultPhaseTimeout, PhaseScale
	}
	return DefaultPhaseTimeout, 0
}

// StopMargin is how much longer than a --phase-timeout given the ranks'
// stop watch waits (job.Options.StopDeadline): a rank whose wait stalls
// on the stopped one, with that deadline, speaks first and names the call
// it waited in.
const StopMargin = 2 * time.Second

// StopDeadline returns how long a rank may stay stopped before the ranks'
// stop watch ends the job: the deadline given plus StopMargin (0: off), or
// DefaultStopDeadline.
func (p *PhaseTimeout) StopDeadline() time.Duration {
	if p.Given {
		if p.D == 0 {
			return 0
		}
		return p.D + StopMargin
	}
	return DefaultStopDeadline
}

// AddPhaseTimeout registers --phase-timeout in fs, bound to p; phases as
// for Stall.
func AddPhaseTimeout(fs *pflag.FlagSet, p *PhaseTimeout, phases bool) {
	fs.Var(p, PhaseTimeoutFlag, PhaseTimeoutUsage(phases))
}

// SplitPhaseTimeout removes --phase-timeout (also spelt with one dash,
// with its value after "=" or as the next word) from args, up to a "--",
// and sets p from it; the rest goes to a parser that does not know the
// flag (IOR's and mdtest's). The last one given wins, as with pflag.
func SplitPhaseTimeout(args []string, p *PhaseTimeout) ([]string, error) {
	return SplitValue(args, PhaseTimeoutFlag, "a duration, 0 for off", p.Set)
}

// SplitValue removes the option --name (also spelt with one dash, with its
// value after "=" or as the next word) from args, up to a "--", and calls
// set with each value, in order; the rest goes to a parser that does not
// know the option. want says what a missing value should have been.
func SplitValue(args []string, name, want string, set func(string) error) ([]string, error) {
	return splitOption(args, name, func(value string, hasValue bool, next func() (string, bool)) error {
		if !hasValue {
			var ok bool
			if value, ok = next(); !ok {
				return fmt.Errorf("needs a value (%s)", want)
			}
		}
		return set(value)
	})
}

// SplitSwitch removes the switch --name (also spelt with one dash, and
// --name=true or =false) from args, up to a "--", and calls set with each
// setting, in order; the rest goes to a parser that does not know it.
func SplitSwitch(args []string, name string, set func(on bool) error) ([]string, error) {
	return splitOption(args, name, func(value string, hasValue bool, _ func() (string, bool)) error {
		on := true
		if hasValue {
			var err error
			if on, err = strconv.ParseBool(value); err != nil {
				return fmt.Errorf("%q: want true or false, or the switch alone", value)
			}
		}
		return set(on)
	})
}

// splitOption is the one scanner of SplitValue and SplitSwitch: it
// removes --name and -name, with or without "=VALUE", from args up to a
// "--", calling take with each one's value; take may consume the next
// word through next. Its error is returned naming the option.
func splitOption(args []string, name string, take func(value string, hasValue bool, next func() (string, bool)) error) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		body, ok := strings.CutPrefix(a, "--")
		if !ok {
			body, ok = strings.CutPrefix(a, "-")
		}
		n, value, hasValue := strings.Cut(body, "=")
		if !ok || n != name {
			out = append(out, a)
			continue
		}
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		if err := take(value, hasValue, next); err != nil {
			return nil, fmt.Errorf("--%s: %w", name, err)
		}
	}
	return out, nil
}

// PhaseTimeoutHelp is the help section of --phase-timeout for the
// commands whose option list is not a pflag.FlagSet of their own (ior,
// mdtest: phases true).
func PhaseTimeoutHelp(phases bool) string {
	fs := pflag.NewFlagSet("watchdog", pflag.ContinueOnError)
	AddPhaseTimeout(fs, &PhaseTimeout{}, phases)
	return "Watchdog:\n" + Usages(fs)
}
