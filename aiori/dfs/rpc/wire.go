package rpc

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// Version is the wire protocol's version, exchanged in the hello.
const Version = 4

// Tags of the four message streams on a connection (see the package doc).
const (
	tagHello = 0x64667300 + iota // "dfs\x00": hello and its answer
	tagReq                       // requests, client to engine
	tagRep                       // replies, engine to client
	tagData                      // bulk data, either way
)

// Sizes of the format.
const (
	headerLen = 24 // id, op, kind, mode, reserved, data length
	fixedLen  = 56 // handle, oid, a, b, c, classes, flags, reserved
	prefixLen = headerLen + fixedLen
	// maxMsg is the largest request or reply message, and so each side's
	// receive buffer: the fixed part, the strings and inline data.
	maxMsg = 64 << 10
	// inlineMax is the most data carried inside a message; more moves
	// as a data message (or by RMA).
	inlineMax = 32 << 10
	// maxData is the most data one call moves (a larger transfer is cut
	// by the client).
	maxData = 1 << 30
	// longBulk is the least data of a call whose answer both sides wait
	// for without spinning (see Client.await and session.run).
	longBulk = 256 << 10
)

// op is an operation code.
type op uint16

// The operations. Their numbers are part of the format.
const (
	opQuery op = iota + 1
	opCreateCont
	opOpenCont
	opListConts
	opQueryCont
	opDestroyCont
	opContClose
	opAllocOIDs
	opPut
	opInsert
	opGet
	opRemove
	opList
	opWriteArray
	opReadArray
	opArraySize
	opSetSize
	opSyncArray
	opPunch
	opRemoveIf
	opUnlink
	opMax // one past the last
)

var opNames = [...]string{"", "query pool", "create container", "open container", "list containers",
	"query container", "destroy container", "close container", "alloc oids", "put", "insert", "get",
	"remove", "list", "write array", "read array", "array size", "set size", "sync array", "punch", "remove if", "unlink"}

func (o op) String() string {
	if o >= opMax {
		return fmt.Sprintf("op %d", uint16(o))
	}
	return opNames[o]
}

// mode says where a message's data is.
type mode uint8

const (
	modeInline mode = iota // at the end of the message
	modeMsg                // in the next message on tagData
	modeRMA                // in the client's exposed buffer, named by key
)

// hints are what a reply tells the client besides its answer.
type hints uint8

// hintBusy says the engine's host has no CPU to spare while clients wait:
// the client waits for the answers to its bulk calls without spinning
// (see Client.await).
const hintBusy hints = 1

// msg is a request or a reply: every field of every operation (see the
// package doc for which ones each uses).
type msg struct {
	id      uint64
	op      op
	kind    kind
	mode    mode
	hints   hints // replies only
	dataLen uint64

	handle  uint64
	oid     object.OID
	a, b, c int64
	class   object.Class // OClass, or AllocOIDs's class
	dirCls  object.Class
	flags   object.IOFlags

	s1, s2 string
	key    []byte
	data   []byte // inline data (decode: aliases the message)

	// inPlace (the engine's, never sent) says data is the client's own
	// buffer, reached through fabric.RMAViewer: a read's bytes are there
	// already, with nothing to write back.
	inPlace bool
}

// bulk is how many bytes of array data request m moves: its own, or
// for a ReadArray those it asks for.
func (m *msg) bulk() int64 {
	if m.op == opReadArray {
		return m.b
	}
	return int64(m.dataLen)
}

// errMalformed is wrapped by every decoding error.
var errMalformed = errors.New("malformed message")

// encode appends m to b[:0]; inline data is appended when m.mode is
// modeInline.
func (m *msg) encode(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b[:0], m.id)
	b = le.AppendUint16(b, uint16(m.op))
	b = le.AppendUint16(b, uint16(m.kind))
	b = append(b, byte(m.mode), byte(m.hints), 0, 0)
	b = le.AppendUint64(b, m.dataLen)
	b = le.AppendUint64(b, m.handle)
	b = le.AppendUint64(b, m.oid.Hi)
	b = le.AppendUint64(b, m.oid.Lo)
	b = le.AppendUint64(b, uint64(m.a))
	b = le.AppendUint64(b, uint64(m.b))
	b = le.AppendUint64(b, uint64(m.c))
	b = le.AppendUint16(b, uint16(m.class))
	b = le.AppendUint16(b, uint16(m.dirCls))
	b = append(b, byte(m.flags), 0, 0, 0)
	b = appendBytes(b, m.s1)
	b = appendBytes(b, m.s2)
	b = appendBytes(b, m.key)
	if m.mode == modeInline {
		b = append(b, m.data...)
	}
	return b
}

// appendBytes appends a u32 length and s.
func appendBytes[S string | []byte](b []byte, s S) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// encodedLen is the length of m's message without its inline data.
func (m *msg) encodedLen() int { return prefixLen + 12 + len(m.s1) + len(m.s2) + len(m.key) }

// decode parses b into m. m.data and m.key alias b; the strings are
// copies. It checks the format, not what the fields mean.
func (m *msg) decode(b []byte) error {
	if len(b) < prefixLen {
		return fmt.Errorf("%w: %d bytes, shorter than the %d-byte fixed part", errMalformed, len(b), prefixLen)
	}
	le := binary.LittleEndian
	*m = msg{
		id:      le.Uint64(b),
		op:      op(le.Uint16(b[8:])),
		kind:    kind(le.Uint16(b[10:])),
		mode:    mode(b[12]),
		hints:   hints(b[13]),
		dataLen: le.Uint64(b[16:]),
		handle:  le.Uint64(b[24:]),
		oid:     object.OID{Hi: le.Uint64(b[32:]), Lo: le.Uint64(b[40:])},
		a:       int64(le.Uint64(b[48:])),
		b:       int64(le.Uint64(b[56:])),
		c:       int64(le.Uint64(b[64:])),
		class:   object.Class(le.Uint16(b[72:])),
		dirCls:  object.Class(le.Uint16(b[74:])),
		flags:   object.IOFlags(b[76]),
	}
	rest := b[prefixLen:]
	var s1, s2 []byte
	var err error
	if s1, rest, err = cutBytes(rest); err != nil {
		return err
	}
	if s2, rest, err = cutBytes(rest); err != nil {
		return err
	}
	if m.key, rest, err = cutBytes(rest); err != nil {
		return err
	}
	m.s1, m.s2 = string(s1), string(s2)
	switch {
	case m.mode > modeRMA:
		return fmt.Errorf("%w: data mode %d", errMalformed, m.mode)
	case b[14] != 0 || b[15] != 0:
		return fmt.Errorf("%w: reserved bytes 14-15 are %d, %d, not 0", errMalformed, b[14], b[15])
	case m.dataLen > maxData:
		return fmt.Errorf("%w: %d bytes of data, more than the %d a call may move", errMalformed, m.dataLen, maxData)
	case m.mode == modeInline && uint64(len(rest)) != m.dataLen:
		return fmt.Errorf("%w: %d bytes of inline data, the header says %d", errMalformed, len(rest), m.dataLen)
	case m.mode != modeInline && len(rest) != 0:
		return fmt.Errorf("%w: %d bytes after the strings of a message whose data is elsewhere", errMalformed, len(rest))
	}
	m.data = rest
	return nil
}

// cutBytes splits a u32-length-prefixed field off b.
func cutBytes(b []byte) (field, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%w: a field's length cut short", errMalformed)
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("%w: a field of %d bytes with %d left", errMalformed, n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}
