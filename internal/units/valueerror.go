package units

import "fmt"

// Syntaxf returns an error that says the formatted message as it is (no
// "invalid syntax": the message says what is wrong in a user's words) and
// matches ErrSyntax with errors.Is.
func Syntaxf(format string, a ...any) error {
	return &valueError{msg: fmt.Sprintf(format, a...), kind: ErrSyntax}
}

// Rangef is Syntaxf for a value out of range: it matches ErrRange.
func Rangef(format string, a ...any) error {
	return &valueError{msg: fmt.Sprintf(format, a...), kind: ErrRange}
}

// valueError is a bad value's error: a message for the user and the kind
// a caller checks.
type valueError struct {
	msg  string
	kind error
}

func (e *valueError) Error() string { return e.msg }
func (e *valueError) Unwrap() error { return e.kind }
