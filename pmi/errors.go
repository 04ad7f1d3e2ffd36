package pmi

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNoKey means a get named a key the store does not hold.
	ErrNoKey = errors.New("pmi: key not found")
	// ErrClosed means the connection to the server or client is gone.
	ErrClosed = errors.New("pmi: connection closed")
	// ErrNotSupported means the command is understood but not served
	// (publish_name, lookup_name, spawn).
	ErrNotSupported = errors.New("pmi: not supported")
)

// SyntaxError is a wire line that does not parse.
type SyntaxError struct {
	Line   string // the offending line, clipped to 80 bytes
	Reason string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("pmi: malformed line %q: %s", e.Line, e.Reason)
}

// Error is a failure reported by the peer with a non-zero rc. Code is the rc
// as sent: -1 from Hydra, 1 from Slurm, PMI error numbers from Flux.
type Error struct {
	Cmd  string // the request that failed
	Code int    // the rc on the wire
	Msg  string // msg=, possibly empty
}

func (e *Error) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("pmi: %s failed: rc=%d %s", e.Cmd, e.Code, e.Msg)
	}
	return fmt.Sprintf("pmi: %s failed: rc=%d", e.Cmd, e.Code)
}
