package ofi

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// An address (a rank's business card) is
//
//	ofi:PROVIDER://HOST/NAME/LISTENER
//
// PROVIDER is the provider as the user named it (tcp, shm, verbs;ofi_rxm),
// HOST the host's name (shared-memory providers reach only their own
// host), NAME the endpoint's fi_getname in hex and LISTENER the listener's
// id on that endpoint (one endpoint serves all of a process's listeners).
// A listener of MSG endpoints (-e msg) is its own passive endpoint: NAME is
// the passive endpoint's fi_getname (a sockaddr) and LISTENER is "msg".
type address struct {
	provider string
	host     string
	name     []byte
	ln       uint32 // an RDM listener's id; 0 for a MSG listener
	msg      bool   // a MSG listener's
}

func (a address) String() string {
	id := strconv.FormatUint(uint64(a.ln), 10)
	if a.msg {
		id = EndpointMsg
	}
	return "ofi:" + a.provider + "://" + a.host + "/" + hex.EncodeToString(a.name) + "/" + id
}

var errBadAddr = errors.New("not an ofi address")

// parseAddress reads an address from a peer's business card.
func parseAddress(s string) (address, error) {
	rest, ok := strings.CutPrefix(s, "ofi:")
	if !ok {
		return address{}, fmt.Errorf("%q: %w", s, errBadAddr)
	}
	prov, rest, ok := strings.Cut(rest, "://")
	if !ok || !validProvider(prov) {
		return address{}, fmt.Errorf("%q: want ofi:PROVIDER://HOST/NAME/ID: %w", s, errBadAddr)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[0] == "" {
		return address{}, fmt.Errorf("%q: want ofi:PROVIDER://HOST/NAME/ID: %w", s, errBadAddr)
	}
	name, err := hex.DecodeString(parts[1])
	if err != nil || len(name) == 0 || len(name) > maxName {
		return address{}, fmt.Errorf("%q: the endpoint name is not 1 to %d bytes of hex: %w", s, maxName, errBadAddr)
	}
	if parts[2] == EndpointMsg {
		return address{provider: prov, host: parts[0], name: name, msg: true}, nil
	}
	ln, err := strconv.ParseUint(parts[2], 10, 31)
	if err != nil || ln == 0 {
		return address{}, fmt.Errorf("%q: the listener id is not 1 to %d, nor msg: %w", s, idMask, errBadAddr)
	}
	return address{provider: prov, host: parts[0], name: name, ln: uint32(ln)}, nil
}

// validProvider reports whether p is a provider name as libfabric spells
// them: one to three names of letters, digits, '_' and '-', joined by ';'.
func validProvider(p string) bool {
	names := strings.Split(p, ";")
	if len(names) > 3 {
		return false
	}
	for _, n := range names {
		if n == "" || len(n) > 32 {
			return false
		}
		for _, r := range n {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

// ParseProvider reads the provider of a "-p ofi:PROVIDER" or "--fabric
// ofi:PROVIDER" choice: ok is false when s does not start with "ofi:", and
// err says what is wrong with the rest.
func ParseProvider(s string) (provider string, ok bool, err error) {
	p, ok := strings.CutPrefix(s, "ofi:")
	if !ok {
		return "", false, nil
	}
	if !validProvider(p) {
		return "", true, fmt.Errorf("%q: want ofi:PROVIDER, a libfabric provider such as ofi:tcp, ofi:shm, ofi:udp or ofi:verbs;ofi_rxm", s)
	}
	return p, true, nil
}
