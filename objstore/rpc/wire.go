package rpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object"
)

// Version is the wire protocol's version, exchanged in the hello.
const Version = 5

// Tags of the four message streams on a connection (see the package doc).
const (
	TagHello = 0x64667300 + iota // "dfs\x00": hello and its answer
	TagReq                       // requests, client to engine
	TagRep                       // replies, engine to client
	TagData                      // bulk data, either way
)

// Sizes of the format.
const (
	headerLen = 24 // id, op, kind, mode, reserved, data length
	fixedLen  = 56 // handle, oid, a, b, c, classes, flags, reserved
	// PrefixLen is a message's fixed part, before its strings.
	PrefixLen = headerLen + fixedLen
	// MaxMsg is the largest request or reply message, and so each side's
	// receive buffer: the fixed part, the strings and inline data.
	MaxMsg = 64 << 10
	// InlineMax is the most data carried inside a message; more moves
	// as a data message (or by RMA).
	InlineMax = 32 << 10
	// MaxData is the most data one call moves (a larger transfer is cut
	// by the client).
	MaxData = 1 << 30
	// LongBulk is the least data of a call whose answer both sides wait
	// for without spinning (see the package doc's "Waiting" and Recv).
	LongBulk = 256 << 10
)

// Op is an operation code.
type Op uint16

// The operations. Their numbers are part of the format.
const (
	OpQuery Op = iota + 1
	OpCreateCont
	OpOpenCont
	OpListConts
	OpQueryCont
	OpDestroyCont
	OpContClose
	OpAllocOIDs
	OpPut
	OpInsert
	OpGet
	OpRemove
	OpList
	OpWriteArray
	OpReadArray
	OpArraySize
	OpSetSize
	OpSyncArray
	OpPunch
	OpRemoveIf
	OpUnlink
	OpMax // one past the last
)

var opNames = [...]string{"", "query pool", "create container", "open container", "list containers",
	"query container", "destroy container", "close container", "alloc oids", "put", "insert", "get",
	"remove", "list", "write array", "read array", "array size", "set size", "sync array", "punch", "remove if", "unlink"}

// String names the operation, as errors say it ("read array").
func (o Op) String() string {
	if o >= OpMax {
		return fmt.Sprintf("op %d", uint16(o))
	}
	return opNames[o]
}

// Mode says where a message's data is.
type Mode uint8

// The data modes. Their numbers are part of the format.
const (
	ModeInline Mode = iota // at the end of the message
	ModeMsg                // in the next message on TagData
	ModeRMA                // in the client's exposed buffer, named by key
)

// Hints are what a reply tells the client besides its answer.
type Hints uint8

// HintBusy says the engine's host has no CPU to spare while clients wait:
// the client waits for the answers to its bulk calls without spinning
// (see the package doc's "Waiting").
const HintBusy Hints = 1

// Msg is a request or a reply: every field of every operation (see the
// package doc for which ones each uses).
type Msg struct {
	ID      uint64 // the request id; the reply repeats it
	Op      Op
	Kind    Kind  // replies only: the error kind
	Mode    Mode  // where the data is
	Hints   Hints // replies only
	DataLen uint64

	Handle   uint64 // a container handle
	OID      object.OID
	A, B, C  int64
	Class    object.Class // OClass, or AllocOIDs's class
	DirClass object.Class
	Flags    object.IOFlags

	S1, S2 string
	Key    []byte // the client's RMA key (ModeRMA)
	Data   []byte // inline data (Decode: aliases the message)
}

// Bulk is how many bytes of array data request m moves: its own, or
// for a ReadArray those it asks for.
func (m *Msg) Bulk() int64 {
	if m.Op == OpReadArray {
		return m.B
	}
	return int64(m.DataLen)
}

// SetProps carries a container's properties in m's C, Class and
// DirClass (CreateCont's request, OpenCont's and QueryCont's replies).
func (m *Msg) SetProps(p object.ContProps) {
	m.C, m.Class, m.DirClass = p.ChunkSize, p.OClass, p.DirOClass
}

// Props returns the container properties SetProps put in m.
func (m *Msg) Props() object.ContProps {
	return object.ContProps{ChunkSize: m.C, OClass: m.Class, DirOClass: m.DirClass}
}

// Recv receives a tag message on c into b: by fabric.RecvLong when long
// (a call of LongBulk bytes or more on a busy host: see the package doc's
// "Waiting"), by c.Recv otherwise. Both sides wait so.
func Recv(ctx context.Context, c fabric.Conn, tag uint32, b []byte, long bool) (int, error) {
	if long {
		return fabric.RecvLong(ctx, c, tag, b)
	}
	return c.Recv(ctx, tag, b)
}

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed message")

// Encode appends m to b[:0]; inline data is appended when m.Mode is
// ModeInline.
func (m *Msg) Encode(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b[:0], m.ID)
	b = le.AppendUint16(b, uint16(m.Op))
	b = le.AppendUint16(b, uint16(m.Kind))
	b = append(b, byte(m.Mode), byte(m.Hints), 0, 0)
	b = le.AppendUint64(b, m.DataLen)
	b = le.AppendUint64(b, m.Handle)
	b = le.AppendUint64(b, m.OID.Hi)
	b = le.AppendUint64(b, m.OID.Lo)
	b = le.AppendUint64(b, uint64(m.A))
	b = le.AppendUint64(b, uint64(m.B))
	b = le.AppendUint64(b, uint64(m.C))
	b = le.AppendUint16(b, uint16(m.Class))
	b = le.AppendUint16(b, uint16(m.DirClass))
	b = append(b, byte(m.Flags), 0, 0, 0)
	b = appendBytes(b, m.S1)
	b = appendBytes(b, m.S2)
	b = appendBytes(b, m.Key)
	if m.Mode == ModeInline {
		b = append(b, m.Data...)
	}
	return b
}

// appendBytes appends a u32 length and s.
func appendBytes[S string | []byte](b []byte, s S) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// EncodedLen is the length of m's message without its inline data.
func (m *Msg) EncodedLen() int { return PrefixLen + 12 + len(m.S1) + len(m.S2) + len(m.Key) }

// Decode parses b into m. m.Data and m.Key alias b; the strings are
// copies. It checks the format, not what the fields mean.
func (m *Msg) Decode(b []byte) error {
	if len(b) < PrefixLen {
		return fmt.Errorf("%w: %d bytes, shorter than the %d-byte fixed part", ErrMalformed, len(b), PrefixLen)
	}
	le := binary.LittleEndian
	*m = Msg{
		ID:       le.Uint64(b),
		Op:       Op(le.Uint16(b[8:])),
		Kind:     Kind(le.Uint16(b[10:])),
		Mode:     Mode(b[12]),
		Hints:    Hints(b[13]),
		DataLen:  le.Uint64(b[16:]),
		Handle:   le.Uint64(b[24:]),
		OID:      object.OID{Hi: le.Uint64(b[32:]), Lo: le.Uint64(b[40:])},
		A:        int64(le.Uint64(b[48:])),
		B:        int64(le.Uint64(b[56:])),
		C:        int64(le.Uint64(b[64:])),
		Class:    object.Class(le.Uint16(b[72:])),
		DirClass: object.Class(le.Uint16(b[74:])),
		Flags:    object.IOFlags(b[76]),
	}
	rest := b[PrefixLen:]
	var s1, s2 []byte
	var err error
	if s1, rest, err = cutBytes(rest); err != nil {
		return err
	}
	if s2, rest, err = cutBytes(rest); err != nil {
		return err
	}
	if m.Key, rest, err = cutBytes(rest); err != nil {
		return err
	}
	m.S1, m.S2 = string(s1), string(s2)
	switch {
	case m.Mode > ModeRMA:
		return fmt.Errorf("%w: data mode %d", ErrMalformed, m.Mode)
	case b[14] != 0 || b[15] != 0:
		return fmt.Errorf("%w: reserved bytes 14-15 are %d, %d, not 0", ErrMalformed, b[14], b[15])
	case m.DataLen > MaxData:
		return fmt.Errorf("%w: %d bytes of data, more than the %d a call may move", ErrMalformed, m.DataLen, MaxData)
	case m.Mode == ModeInline && uint64(len(rest)) != m.DataLen:
		return fmt.Errorf("%w: %d bytes of inline data, the header says %d", ErrMalformed, len(rest), m.DataLen)
	case m.Mode != ModeInline && len(rest) != 0:
		return fmt.Errorf("%w: %d bytes after the strings of a message whose data is elsewhere", ErrMalformed, len(rest))
	}
	m.Data = rest
	return nil
}

// cutBytes splits a u32-length-prefixed field off b.
func cutBytes(b []byte) (field, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%w: a field's length cut short", ErrMalformed)
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("%w: a field of %d bytes with %d left", ErrMalformed, n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}
