package cliflag

import (
	"fmt"
	"strings"

	"github.com/hpcbench/hpcbench/internal/ior/pattern"
)

// DataPacketType is the content of written data (IOR's -l, mdtest's
// --dataPacketType): one of pattern's data signatures, with the names and
// errors of the command lines. Convert it with pattern.Type(t).
type DataPacketType pattern.Type

// The data packet types, pattern's in IOR's order. Timestamp, the zero
// value, is IOR's and mdtest's default.
const (
	// Timestamp fills every 8-byte word with the rank and the signature
	// plus the word's index.
	Timestamp = DataPacketType(pattern.Timestamp)
	// Offset is Timestamp plus the file offset stamped every 4 KiB.
	Offset = DataPacketType(pattern.Offset)
	// Incompressible is random words plus offset stamps.
	Incompressible = DataPacketType(pattern.Incompressible)
	// Random is a pseudo-random sequence keyed by the signature.
	Random = DataPacketType(pattern.Random)
)

// String returns the type's name (timestamp, offset, incompressible or
// random), or "DataPacketType(N)" for an invalid value.
func (t DataPacketType) String() string {
	if !pattern.Type(t).Valid() {
		return fmt.Sprintf("DataPacketType(%d)", int(t))
	}
	return pattern.Type(t).String()
}

// MarshalText returns the type's name, so JSON run records carry
// "timestamp" rather than a number.
func (t DataPacketType) MarshalText() ([]byte, error) {
	if !pattern.Type(t).Valid() {
		return nil, fmt.Errorf("marshal data packet type: unknown type %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText parses what MarshalText wrote (or any spelling
// ParseDataPacketType takes).
func (t *DataPacketType) UnmarshalText(b []byte) error {
	v, err := ParseDataPacketType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// ParseDataPacketType parses -l or --dataPacketType: a type's full name or
// its first letter (t, o, i, r), in any case. IOR and mdtest look only at
// the first letter; other words are rejected here rather than guessed at.
func ParseDataPacketType(s string) (DataPacketType, error) {
	for t := pattern.Timestamp; t.Valid(); t++ {
		name := t.String()
		if strings.EqualFold(s, name) || strings.EqualFold(s, name[:1]) {
			return DataPacketType(t), nil
		}
	}
	return 0, fmt.Errorf("unknown data packet type %q: want timestamp, offset, incompressible or random (or t, o, i, r)", s)
}
