package cliflag

import "errors"

// Path is a flag value naming a file an option writes (--output,
// --archive, IOR's summaryFile): an empty one is refused, where it used
// to be taken as "no file" and the run wrote nothing and said nothing.
type Path struct{ P *string }

// errEmptyPath is Set's error for "".
var errEmptyPath = errors.New(`"": want a file name`)

// String returns the path, "" before one is set.
func (p Path) String() string {
	if p.P == nil {
		return ""
	}
	return *p.P
}

// Set takes s as the path; an empty s is an error.
func (p Path) Set(s string) error {
	if s == "" {
		return errEmptyPath
	}
	*p.P = s
	return nil
}

// Type names the value for pflag's help: "string", as before.
func (p Path) Type() string { return "string" }
