package object

import (
	"fmt"
	"strconv"
	"strings"
)

// Class is an object class: over how many targets an object's chunks are
// striped (DAOS's S1, S2, ..., SX). Replicated and erasure-coded classes
// (RP_*, EC_*) are not implemented.
type Class uint16

// The classes with names of their own. Any SN with N a power of two up to
// MaxStripe parses too.
const (
	// S1 keeps every chunk of an object on one target.
	S1 Class = 1
	// S2 stripes chunks over two targets.
	S2 Class = 2
	// S4 stripes chunks over four targets.
	S4 Class = 4
	// SX stripes chunks over every target of the pool.
	SX Class = 0xffff
)

// MaxStripe is the largest N of a class SN.
const MaxStripe = 1024

// ParseClass parses a class name as IOR's --dfs.oclass takes it: S1, S2,
// S4, ..., SX (any case). The empty string is not a class.
func ParseClass(s string) (Class, error) {
	u := strings.ToUpper(s)
	if u == "SX" {
		return SX, nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(u, "S")); err == nil && strings.HasPrefix(u, "S") &&
		n >= 1 && n <= MaxStripe && n&(n-1) == 0 {
		return Class(n), nil
	}
	return 0, fmt.Errorf("object class %q: %w (want S1, S2, S4, ..., S%d or SX)", s, ErrInvalid, MaxStripe)
}

// String returns the class's name.
func (c Class) String() string {
	if c == SX {
		return "SX"
	}
	return "S" + strconv.Itoa(int(c))
}

// Valid reports whether c is a class ParseClass returns.
func (c Class) Valid() bool {
	_, err := ParseClass(c.String())
	return err == nil && c != 0
}

// MarshalText writes the class's name, so JSON and the archive carry "S2".
func (c Class) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("object class %d: %w", uint16(c), ErrInvalid)
	}
	return []byte(c.String()), nil
}

// UnmarshalText parses a class's name.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Width returns over how many of ntargets targets an object of class c is
// striped: min(N, ntargets) for SN, ntargets for SX.
func (c Class) Width(ntargets int) int {
	if c == SX || int(c) > ntargets {
		return ntargets
	}
	return int(c)
}

// OID is an object id. Hi's top 16 bits hold the class; the other 112 bits
// are the id proper, unique in the container (AllocOIDs hands them out,
// never below FirstSeq). Sequence numbers below FirstSeq are reserved for
// fixed ids made with NewOID: DFS's superblock (0) and root directory (1).
type OID struct {
	Hi, Lo uint64
}

// FirstSeq is the lowest sequence number AllocOIDs hands out; the ones
// below are reserved for fixed ids.
const FirstSeq = 1 << 10

const classShift = 48

// NewOID returns the id of class c with sequence number seq.
func NewOID(c Class, seq uint64) OID {
	return OID{Hi: uint64(c) << classShift, Lo: seq}
}

// Class returns the class the id carries.
func (o OID) Class() Class { return Class(o.Hi >> classShift) }

// String writes the id as DAOS prints one, hi.lo in hex.
func (o OID) String() string { return fmt.Sprintf("%x.%x", o.Hi, o.Lo) }

// ParseOID parses what String writes.
func ParseOID(s string) (OID, error) {
	hi, lo, ok := strings.Cut(s, ".")
	if ok {
		h, err1 := strconv.ParseUint(hi, 16, 64)
		l, err2 := strconv.ParseUint(lo, 16, 64)
		if err1 == nil && err2 == nil {
			return OID{Hi: h, Lo: l}, nil
		}
	}
	return OID{}, fmt.Errorf("object id %q: %w (want HI.LO in hex)", s, ErrInvalid)
}

// Placement returns the target, of ntargets, that holds chunk k of oid:
// (hash(oid) + k mod width) mod ntargets, width from the id's class. The
// hash is fixed: it is part of the on-disk layout.
func Placement(oid OID, k int64, ntargets int) int {
	w := int64(oid.Class().Width(ntargets))
	if w <= 0 {
		w = 1
	}
	h := mix64(oid.Hi ^ mix64(oid.Lo))
	return int((h%uint64(ntargets) + uint64(k%w)) % uint64(ntargets))
}

// mix64 is splitmix64's finalizer: a fixed, well-spread 64-bit hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// DefaultProps returns a container's properties when none are given:
// DFS's 1 MiB chunks, files striped over every target (SX, as IOR's DFS
// runs usually ask), directories on one (S1).
func DefaultProps() ContProps { return ContProps{ChunkSize: 1 << 20, OClass: SX, DirOClass: S1} }

// CheckChunkSize says whether n is a chunk size the store takes: a multiple
// of 4 KiB (so O_DIRECT transfers of whole chunks stay aligned) from 4 KiB
// to 1 GiB.
func CheckChunkSize(n int64) error {
	if n < 4096 || n > 1<<30 || n%4096 != 0 {
		return fmt.Errorf("chunk size %d: %w (want a multiple of 4 KiB from 4k to 1g)", n, ErrInvalid)
	}
	return nil
}

// WithDefaults returns p with its zero fields set from DefaultProps.
func (p ContProps) WithDefaults() ContProps {
	d := DefaultProps()
	if p.ChunkSize == 0 {
		p.ChunkSize = d.ChunkSize
	}
	if p.OClass == 0 {
		p.OClass = d.OClass
	}
	if p.DirOClass == 0 {
		p.DirOClass = d.DirOClass
	}
	return p
}

// Check validates p after WithDefaults.
func (p ContProps) Check() error {
	if err := CheckChunkSize(p.ChunkSize); err != nil {
		return err
	}
	for _, c := range []Class{p.OClass, p.DirOClass} {
		if !c.Valid() {
			return fmt.Errorf("object class %d: %w", uint16(c), ErrInvalid)
		}
	}
	return nil
}

// CheckLabel says whether s can name a container: 1 to 127 characters of
// letters, digits, '.', '_', ':' and '-', as DAOS's labels (and never a
// path).
func CheckLabel(s string) error {
	if len(s) == 0 || len(s) > 127 {
		return fmt.Errorf("label %q: %w (want 1 to 127 characters)", s, ErrInvalid)
	}
	if i := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r))
	}); i >= 0 {
		return fmt.Errorf("label %q: %w: %q is not allowed (want letters, digits, '.', '_', ':' or '-')", s, ErrInvalid, s[i])
	}
	return nil
}
