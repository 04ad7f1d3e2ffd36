package distribution

import (
	"fmt"
	"strings"
	"time"
)

// IntervalValue binds --interval as a flag value (pflag.Value): a Go
// duration in [MinInterval, 1h]. Given, when not nil, is set once the
// flag is. Its errors do not name the flag; the parser does.
type IntervalValue struct {
	D     *time.Duration
	Given *bool
}

// String gives the bound duration, or "" while it is 0 (the help text
// then shows no default; the flag's usage says DefaultInterval).
func (v IntervalValue) String() string {
	if v.D == nil || *v.D == 0 {
		return ""
	}
	return v.D.String()
}

// Set parses and checks s.
func (v IntervalValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 1s or 250ms", s)
	}
	if CheckInterval(d) != nil {
		return fmt.Errorf("%v: want a duration in [%v, 1h]", d, MinInterval)
	}
	*v.D = d
	if v.Given != nil {
		*v.Given = true
	}
	return nil
}

// Type names the value in help text.
func (IntervalValue) Type() string { return "duration" }

// SteadyValue binds --until-steady[=WINDOW,TOLERANCE] as a flag value
// (ParseSteady; bare, with the parser's NoOptDefVal "", DefaultSteady).
// Its errors do not name the flag; the parser does.
type SteadyValue struct{ S *Steady }

// String gives the bound test as --until-steady takes it.
func (v SteadyValue) String() string {
	if v.S == nil {
		return ""
	}
	return v.S.String()
}

// Set parses s.
func (v SteadyValue) Set(s string) error {
	st, err := ParseSteady(s)
	if err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "--until-steady "))
	}
	*v.S = st
	return nil
}

// Type names the value in help text.
func (SteadyValue) Type() string { return "window,tolerance" }
