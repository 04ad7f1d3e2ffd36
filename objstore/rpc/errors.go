package rpc

import (
	"errors"
	"io"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Kind is a reply's error kind: what errors.Is tests on the client.
type Kind uint16

// The kinds. Their numbers are part of the format.
const (
	KindOK       Kind = iota
	KindNotExist      // object.ErrNotExist
	KindExist         // object.ErrExist
	KindInvalid       // object.ErrInvalid
	KindEOF           // io.EOF (a short ReadArray; the reply carries its data)
	KindCanceled      // the engine's context ended (the engine is stopping)
	KindOther         // anything else: only the text crosses
	KindChanged       // object.ErrChanged
)

// KindOf classifies an engine-side error: the kind its reply carries.
func KindOf(err error) Kind {
	switch {
	case err == nil:
		return KindOK
	case errors.Is(err, object.ErrNotExist):
		return KindNotExist
	case errors.Is(err, object.ErrExist):
		return KindExist
	case errors.Is(err, object.ErrInvalid):
		return KindInvalid
	case errors.Is(err, object.ErrChanged):
		return KindChanged
	case err == io.EOF:
		return KindEOF
	case errors.Is(err, ErrCanceled):
		return KindCanceled
	}
	return KindOther
}

// base returns the sentinel a kind stands for (nil for KindOther).
func (k Kind) base() error {
	switch k {
	case KindNotExist:
		return object.ErrNotExist
	case KindExist:
		return object.ErrExist
	case KindInvalid:
		return object.ErrInvalid
	case KindCanceled:
		return ErrCanceled
	case KindChanged:
		return object.ErrChanged
	}
	return nil
}

// ErrCanceled is what a call the engine gave up on because it is stopping
// wraps (its own context's error does not cross the wire).
var ErrCanceled = errors.New("the engine stopped serving")

// EngineError is an error the engine returned: its text, and the kind the
// engine's error was, so that errors.Is(err, object.ErrNotExist) and the
// others hold on the client as they did in the engine.
type EngineError struct {
	// Addr is the engine's address.
	Addr string
	// Text is the engine's error message.
	Text string
	kind Kind
}

// Error returns "dfs engine ADDR: TEXT".
func (e *EngineError) Error() string { return "dfs engine " + e.Addr + ": " + e.Text }

// Unwrap returns the sentinel of the error's kind, or nil.
func (e *EngineError) Unwrap() error { return e.kind.base() }

// ReplyErr turns a reply's kind and text, from the engine at addr, into
// the client's error: nil, io.EOF, or an *EngineError.
func ReplyErr(addr string, k Kind, text string) error {
	switch k {
	case KindOK:
		return nil
	case KindEOF:
		return io.EOF
	}
	return &EngineError{Addr: addr, Text: text, kind: k}
}
