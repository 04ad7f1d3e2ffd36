package cliflag

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// ParseArgs parses args into fs. It returns pflag.ErrHelp when help is
// set, whatever else the command line holds; else pflag's error as
// flagError rewords it; else an error naming the first argument that is
// not an option, followed by hint ("IOR options start with - (such as -b
// 4m)").
func ParseArgs(fs *pflag.FlagSet, args []string, help *bool, flagError func(error) error, hint string) error {
	err := fs.Parse(args)
	if *help {
		return pflag.ErrHelp
	}
	if err != nil {
		return flagError(err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q: %s", rest[0], hint)
	}
	return nil
}

// FlagError rewords an error of pflag's Parse as "flag: why": a bad value
// as "-b: " and the value's error, a missing one as "-b: needs a value", an
// unknown option as `unknown option "--foo"`, bad syntax as `bad option
// syntax "---x"`. Other errors are returned as they are.
//
// unknown, if not nil, is asked first about an unknown option: name is
// its letter when short is true (given among short flags), else its long
// name; the error it returns, if any, is FlagError's.
func FlagError(err error, unknown func(name string, short bool) error) error {
	var (
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
		notExist *pflag.NotExistError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		if why := invalid.Unwrap().Error(); isPflagInt(f.Value.Type()) && (why == "must be an integer" || why == "must be a non-negative integer") {
			// pflag's own "must be an integer" names neither the value nor
			// what would do.
			want := "want digits"
			if r := f.Annotations[rangeAnnotation]; len(r) > 0 {
				want = "want " + r[0]
			}
			return fmt.Errorf("%s: %q is not a whole number: %s", FlagLabel(f), invalid.GetValue(), want)
		}
		return fmt.Errorf("%s: %w", FlagLabel(f), invalid.Unwrap())
	case errors.As(err, &required):
		return fmt.Errorf("%s: needs a value", FlagLabel(required.GetFlag()))
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		short := notExist.GetSpecifiedShortnames() != ""
		if unknown != nil {
			if err := unknown(name, short); err != nil {
				return err
			}
		}
		if short {
			return fmt.Errorf("unknown option %q", "-"+name)
		}
		return fmt.Errorf("unknown option %q", "--"+name)
	case errors.As(err, &syntax):
		return fmt.Errorf("bad option syntax %q", syntax.GetSpecifiedFlag())
	}
	return err
}

// rangeAnnotation is the flag annotation SetRange writes.
const rangeAnnotation = "hpcbench-range"

// SetRange records what flag name of fs accepts ("1 to 4096"), for the
// error FlagError words when the value given is not a number at all.
func SetRange(fs *pflag.FlagSet, name, accepted string) {
	// SetAnnotation fails only on a name fs does not have, and then
	// there is no flag whose error would say it.
	_ = fs.SetAnnotation(name, rangeAnnotation, []string{accepted})
}

// isPflagInt reports whether typ names one of pflag's integer values,
// whose parse error is a bare "must be an integer" or "must be a
// non-negative integer" (this package's own integer values word theirs).
func isPflagInt(typ string) bool {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}

// FlagLabel names a flag as a user types it: -b, or --randomPrefill.
func FlagLabel(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// OneLineError prints Err with control characters (C0 and DEL) replaced by
// '?', so that what the user typed (or a backend's message) cannot break
// the line; with Unicode, the Unicode line breaks (U+0085, U+2028, U+2029)
// too. The chain stays reachable for errors.Is.
type OneLineError struct {
	Err     error
	Unicode bool
}

// Error returns Err's message on one line.
func (e OneLineError) Error() string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || e.Unicode && (r == '\u2028' || r == '\u2029' || r == '\u0085') {
			return '?'
		}
		return r
	}, e.Err.Error())
}

// Unwrap returns Err.
func (e OneLineError) Unwrap() error { return e.Err }
