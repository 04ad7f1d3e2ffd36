package rpc

import (
	"errors"
	"io"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// kind is a reply's error kind: what errors.Is tests on the client.
type kind uint16

// The kinds. Their numbers are part of the format.
const (
	kindOK       kind = iota
	kindNotExist      // object.ErrNotExist
	kindExist         // object.ErrExist
	kindInvalid       // object.ErrInvalid
	kindEOF           // io.EOF (a short ReadArray; the reply carries its data)
	kindCanceled      // the engine's context ended (the engine is stopping)
	kindOther         // anything else: only the text crosses
	kindChanged       // object.ErrChanged
)

// kindOf classifies an engine-side error.
func kindOf(err error) kind {
	switch {
	case err == nil:
		return kindOK
	case errors.Is(err, object.ErrNotExist):
		return kindNotExist
	case errors.Is(err, object.ErrExist):
		return kindExist
	case errors.Is(err, object.ErrInvalid):
		return kindInvalid
	case errors.Is(err, object.ErrChanged):
		return kindChanged
	case err == io.EOF:
		return kindEOF
	case errors.Is(err, errCanceled):
		return kindCanceled
	}
	return kindOther
}

// base returns the sentinel a kind stands for (nil for kindOther).
func (k kind) base() error {
	switch k {
	case kindNotExist:
		return object.ErrNotExist
	case kindExist:
		return object.ErrExist
	case kindInvalid:
		return object.ErrInvalid
	case kindCanceled:
		return errCanceled
	case kindChanged:
		return object.ErrChanged
	}
	return nil
}

// errCanceled is what a call the engine gave up on because it is stopping
// wraps (its own context's error does not cross the wire).
var errCanceled = errors.New("the engine stopped serving")

// EngineError is an error the engine returned: its text, and the kind the
// engine's error was, so that errors.Is(err, object.ErrNotExist) and the
// others hold on the client as they did in the engine.
type EngineError struct {
	// Addr is the engine's address.
	Addr string
	// Text is the engine's error message.
	Text string
	kind kind
}

// Error returns "dfs engine ADDR: TEXT".
func (e *EngineError) Error() string { return "dfs engine " + e.Addr + ": " + e.Text }

// Unwrap returns the sentinel of the error's kind, or nil.
func (e *EngineError) Unwrap() error { return e.kind.base() }

// replyErr turns a reply's kind and text into the client's error.
func replyErr(addr string, k kind, text string) error {
	switch k {
	case kindOK:
		return nil
	case kindEOF:
		return io.EOF
	}
	return &EngineError{Addr: addr, Text: text, kind: k}
}
