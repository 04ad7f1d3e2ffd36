package pattern

import (
	"errors"
	"fmt"
	"strings"
)

// Type is a data signature: what a transfer buffer holds (IOR's -l,
// dataPacketType). The zero value is Timestamp, IOR's default.
type Type int

// The data signatures, in IOR's order. Their formulas are in the package
// documentation.
const (
	// Timestamp words carry the rank and the signature plus the word
	// index; every transfer of a rank is the same (-l timestamp, t).
	Timestamp Type = iota
	// Offset is Timestamp with a position stamp in the first word of every
	// 4 KiB of the transfer (-l offset, o).
	Offset
	// Incompressible is a pseudo-random stream plus the position stamps
	// (-l incompressible, i).
	Incompressible
	// Random is a pseudo-random stream keyed by signature, rank and file
	// position (-l random, r).
	Random
)

// ErrUnknownType is wrapped by ParseType's error for a value that names no
// data signature.
var ErrUnknownType = errors.New("unknown data packet type")

var typeNames = [...]string{
	Timestamp:      "timestamp",
	Offset:         "offset",
	Incompressible: "incompressible",
	Random:         "random",
}

// String returns the type's full name as -l accepts it ("timestamp",
// "offset", "incompressible", "random"), or "Type(N)" for an invalid value.
func (t Type) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Valid reports whether t is one of the four data signatures.
func (t Type) Valid() bool { return t >= Timestamp && t <= Random }

// PerTransfer reports whether a buffer of type t differs from one transfer
// to the next, that is whether the engine must call Stamp before each
// write. It is false only for Timestamp.
func (t Type) PerTransfer() bool { return t != Timestamp }

// ParseType parses IOR's -l and mdtest's --dataPacketType value: a full
// name or its first letter ("timestamp" or "t", "offset" or "o",
// "incompressible" or "i", "random" or "r"), in any case. IOR looks only
// at the first letter, so it takes "-l olive" as offset; anything else,
// including the empty string, is an error here that names the accepted
// values and wraps ErrUnknownType (the flag's parser prefixes the flag).
func ParseType(s string) (Type, error) {
	l := strings.ToLower(s)
	for t, name := range typeNames {
		if l == name || (len(l) == 1 && l[0] == name[0]) {
			return Type(t), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want timestamp, offset, incompressible or random (or t, o, i, r)", ErrUnknownType, s)
}

// MarshalText returns t.String(); an invalid t is an error.
func (t Type) MarshalText() ([]byte, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("marshal data packet type %d: %w", int(t), ErrUnknownType)
	}
	return []byte(t.String()), nil
}

// UnmarshalText parses text with ParseType.
func (t *Type) UnmarshalText(text []byte) error {
	v, err := ParseType(string(text))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
