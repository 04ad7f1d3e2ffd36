package cliflag

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// OneOf is a set of options that each choose the same thing (--format
// json, --json, --csv): given more than once with different choices, the
// command line is refused rather than the last one silently winning.
// Bind each option through Value or Implied, parse, then call Err.
type OneOf struct {
	given []oneOfChoice // in command-line order
}

// oneOfChoice is one option as given and the choice it made.
type oneOfChoice struct{ spelling, choice string }

// Value wraps v, the option flag (spelt "--format"), so that every value
// given to it is recorded.
func (o *OneOf) Value(flag string, v pflag.Value) pflag.Value {
	return &oneOfValue{o: o, flag: flag, v: v}
}

// Implied returns a switch (bind it with NoOptDefVal "true") that sets v
// to choice, as --json sets --format json; "false" sets nothing.
func (o *OneOf) Implied(flag, choice string, v pflag.Value) pflag.Value {
	return &oneOfValue{o: o, flag: flag, v: v, implied: choice}
}

// Err returns the one-line error of a command line that made different
// choices ("--format json and --csv: choose one"), or nil.
func (o *OneOf) Err() error {
	if len(o.given) < 2 {
		return nil
	}
	first := o.given[0]
	for _, g := range o.given[1:] {
		if !strings.EqualFold(g.choice, first.choice) {
			return fmt.Errorf("%s and %s: choose one", first.spelling, g.spelling)
		}
	}
	return nil
}

// oneOfValue is one option of a OneOf.
type oneOfValue struct {
	o       *OneOf
	flag    string
	v       pflag.Value
	implied string // the switch's choice; "" for an option with a value
}

func (v *oneOfValue) String() string {
	if v.implied != "" {
		return "false"
	}
	return v.v.String()
}

func (v *oneOfValue) Set(s string) error {
	choice, spelling := s, v.flag+" "+s
	if v.implied != "" {
		on, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		if !on {
			return nil
		}
		choice, spelling = v.implied, v.flag
	}
	if err := v.v.Set(choice); err != nil {
		return err
	}
	v.o.given = append(v.o.given, oneOfChoice{spelling: spelling, choice: v.v.String()})
	return nil
}

func (v *oneOfValue) Type() string {
	if v.implied != "" {
		return "bool"
	}
	return v.v.Type()
}
