package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// The kinds of record a KV log holds (the first byte of a payload).
const (
	opPut     byte = 1 // (oid, dkey, akey) = value
	opRemove  byte = 2 // tombstone of every akey of (oid, dkey)
	opPunch   byte = 3 // tombstone of every record of oid
	opReserve byte = 4 // object ids below next are handed out
	opArray   byte = 5 // oid's array is held here whole: its bytes are val
	opUnarray byte = 6 // oid's array is no longer held here (moved to extents)
	opBatch   byte = 7 // several records in one frame, applied together or not at all
)

// Sizes of the log's fixed parts.
const (
	frameHeader = 8          // payload length (u32 LE), CRC32C (u32 LE)
	maxPayload  = 64 << 20   // the largest payload a frame may hold
	logMagic    = "HPCBKV02" // the first 8 bytes of a log file
	// logMagicV1 began the logs of hpcbench before batch frames (opBatch),
	// which it cannot read: Open takes such a log and rewrites its first
	// bytes to logMagic, so that an older hpcbench refuses it by its
	// header rather than failing at the first batch.
	logMagicV1 = "HPCBKV01"
)

// castagnoli returns the CRC32C table of the frames' checksums, made on
// first use: where the CPU has SSE 4.2, making it computes the hardware
// path's tables, which at package init cost every hpcbench process, rank
// or launcher, 3-4% of a 512-rank job's CPU whether it used a pool or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// A record is one decoded payload.
type record struct {
	op         byte
	oid        object.OID
	dkey, akey string
	val        []byte
	next       uint64 // opReserve's high-water mark
}

// errShort says a frame or payload ends before its length says it does.
var errShort = errors.New("record cut short")

// appendFrame appends the frame (header and payload) of recs to b: one
// record's own payload, or for several an opBatch payload holding them all,
// so that a change of several records is one frame, whole or torn as one.
func appendFrame(b []byte, recs ...record) []byte {
	start := len(b)
	b = append(b, make([]byte, frameHeader)...)
	if len(recs) == 1 {
		b = appendPayload(b, recs[0])
	} else {
		b = append(b, opBatch)
		b = binary.AppendUvarint(b, uint64(len(recs)))
		var sub []byte
		for _, r := range recs {
			sub = appendPayload(sub[:0], r)
			b = binary.AppendUvarint(b, uint64(len(sub)))
			b = append(b, sub...)
		}
	}
	n := len(b) - start - frameHeader
	binary.LittleEndian.PutUint32(b[start:], uint32(n))
	binary.LittleEndian.PutUint32(b[start+4:], frameCRC(b[start:start+4], b[start+frameHeader:]))
	return b
}

// appendPayload appends r's payload, its kind first, to b.
func appendPayload(b []byte, r record) []byte {
	b = append(b, r.op)
	if r.op == opReserve {
		return binary.LittleEndian.AppendUint64(b, r.next)
	}
	b = binary.LittleEndian.AppendUint64(b, r.oid.Hi)
	b = binary.LittleEndian.AppendUint64(b, r.oid.Lo)
	switch r.op {
	case opPunch, opUnarray:
		return b
	case opArray:
		return append(b, r.val...)
	}
	b = binary.AppendUvarint(b, uint64(len(r.dkey)))
	b = append(b, r.dkey...)
	if r.op == opRemove {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(r.akey)))
	b = append(b, r.akey...)
	return append(b, r.val...)
}

// frameCRC is the checksum of a frame: CRC32C over its length field and its
// payload, so a damaged length does not pass for a shorter frame.
func frameCRC(length, payload []byte) uint32 {
	t := castagnoli()
	return crc32.Update(crc32.Checksum(length, t), t, payload)
}

// frameSize is the size on disk of r's frame, without encoding it.
func frameSize(r record) int64 {
	n := 1
	switch r.op {
	case opReserve:
		n += 8
	case opPunch, opUnarray:
		n += 16
	case opArray:
		n += 16 + len(r.val)
	case opRemove:
		n += 16 + uvarintLen(len(r.dkey)) + len(r.dkey)
	default:
		n += 16 + uvarintLen(len(r.dkey)) + len(r.dkey) + uvarintLen(len(r.akey)) + len(r.akey) + len(r.val)
	}
	return int64(frameHeader + n)
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}

// frameExtent returns the size of the frame at the start of b as its
// length field says, or 0 when b is too short to hold that field or the
// length is out of range.
func frameExtent(b []byte) int {
	if len(b) < frameHeader {
		return 0
	}
	n := binary.LittleEndian.Uint32(b)
	if n > maxPayload {
		return 0
	}
	return frameHeader + int(n)
}

// decodeFrame decodes the frame at the start of b and returns its records
// (one, or a batch's) and its size. errShort means b ends inside the frame;
// any other error is a frame that is whole but not valid (a bad checksum or
// payload).
func decodeFrame(b []byte) ([]record, int, error) {
	if len(b) < frameHeader {
		return nil, 0, errShort
	}
	n := binary.LittleEndian.Uint32(b)
	if n > maxPayload {
		return nil, 0, fmt.Errorf("payload length %d: more than %d", n, maxPayload)
	}
	if uint64(len(b)) < frameHeader+uint64(n) {
		return nil, 0, errShort
	}
	payload := b[frameHeader : frameHeader+n]
	if got, want := frameCRC(b[:4], payload), binary.LittleEndian.Uint32(b[4:]); got != want {
		return nil, 0, fmt.Errorf("checksum %08x: want %08x", got, want)
	}
	if len(payload) > 0 && payload[0] == opBatch {
		recs, err := decodeBatch(payload[1:])
		if err != nil {
			return nil, 0, fmt.Errorf("batch: %w", err)
		}
		return recs, frameHeader + int(n), nil
	}
	r, err := decodePayload(payload)
	if err != nil {
		return nil, 0, err
	}
	return []record{r}, frameHeader + int(n), nil
}

// decodeBatch decodes an opBatch payload after its kind: a uvarint count
// (at least 2) and that many uvarint-length-prefixed payloads filling it
// exactly (decodePayload refuses a batch among them: kind 7 is none of its).
func decodeBatch(p []byte) ([]record, error) {
	count, k := binary.Uvarint(p)
	if k <= 0 || count < 2 || count > uint64(len(p)) {
		return nil, fmt.Errorf("record count: want 2 or more, and no more than its bytes")
	}
	p = p[k:]
	recs := make([]record, 0, count)
	for i := range count {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)-k) {
			return nil, fmt.Errorf("record %d: %w", i, errShort)
		}
		r, err := decodePayload(p[k : k+int(n)])
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		recs = append(recs, r)
		p = p[k+int(n):]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%d bytes after its %d records", len(p), count)
	}
	return recs, nil
}

// decodePayload decodes a checksummed payload. The record's strings and
// value are copies: nothing refers to p afterwards.
func decodePayload(p []byte) (record, error) {
	if len(p) == 0 {
		return record{}, errors.New("empty payload")
	}
	r := record{op: p[0]}
	p = p[1:]
	if r.op == opReserve {
		if len(p) != 8 {
			return record{}, fmt.Errorf("reserve record of %d bytes: want 8", len(p))
		}
		r.next = binary.LittleEndian.Uint64(p)
		return r, nil
	}
	if r.op < opPut || r.op > opUnarray {
		return record{}, fmt.Errorf("unknown record kind %d", r.op)
	}
	if len(p) < 16 {
		return record{}, errors.New("object id cut short")
	}
	r.oid = object.OID{Hi: binary.LittleEndian.Uint64(p), Lo: binary.LittleEndian.Uint64(p[8:])}
	p = p[16:]
	switch r.op {
	case opPunch, opUnarray:
		if len(p) != 0 {
			return record{}, fmt.Errorf("record of kind %d (oid only): %d bytes too many", r.op, len(p))
		}
		return r, nil
	case opArray:
		r.val = append([]byte{}, p...)
		return r, nil
	}
	var err error
	if r.dkey, p, err = decodeString(p); err != nil {
		return record{}, fmt.Errorf("dkey: %w", err)
	}
	if r.op == opRemove {
		if len(p) != 0 {
			return record{}, fmt.Errorf("remove record: %d bytes too many", len(p))
		}
		return r, nil
	}
	if r.akey, p, err = decodeString(p); err != nil {
		return record{}, fmt.Errorf("akey: %w", err)
	}
	r.val = append([]byte{}, p...)
	return r, nil
}

// decodeString decodes a uvarint length and that many bytes.
func decodeString(p []byte) (string, []byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return "", nil, errShort
	}
	return string(p[k : k+int(n)]), p[k+int(n):], nil
}
