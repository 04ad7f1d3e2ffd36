package ioflag

import (
	"fmt"
	"strings"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// API binds -a: a backend of Reg by name or alias, in any case, stored as
// its registered name.
type API struct {
	P   *string
	Reg *aiori.Registry
	// Names are the backends the error for an unknown one offers: all of
	// Reg's when nil.
	Names []string
}

// String returns the backend's name.
func (v API) String() string {
	if v.P == nil {
		return ""
	}
	return *v.P
}

// Set looks s up in v.Reg.
func (v API) Set(s string) error {
	e, ok := v.Reg.Lookup(s)
	if !ok {
		names := v.Names
		if names == nil {
			names = v.Reg.Names()
		}
		return fmt.Errorf("unknown API %q: want one of %s", s, strings.Join(names, ", "))
	}
	*v.P = e.Name
	return nil
}

// Type is "api".
func (v API) Type() string { return "api" }

// Packet binds a data packet type (IOR's -l, --dataPacketType).
type Packet struct{ P *pattern.Type }

// String returns the type's name.
func (v Packet) String() string {
	if v.P == nil {
		return ""
	}
	return v.P.String()
}

// Set parses s with pattern.ParseType.
func (v Packet) Set(s string) error {
	t, err := pattern.ParseType(s)
	if err != nil {
		return err
	}
	*v.P = t
	return nil
}

// Type is "type".
func (v Packet) Type() string { return "type" }
