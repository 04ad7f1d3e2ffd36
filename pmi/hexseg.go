package pmi

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// segmentsPrefix starts the value of a key whose data is split across
// "<key>-seg-<i>/<n>" keys, as MPICH's put_ex writes it.
const segmentsPrefix = "segments="

// maxSegments bounds the segment count GetBytes believes, so a corrupt
// "segments=" value cannot start millions of gets.
const maxSegments = 1 << 16

// PutBytes stores b under key in MPICH's binary encoding (mpir_pmi.c
// put_ex), so MPICH ranks and Go ranks can read each other's values: every
// byte becomes two upper-case hex digits, and the segment size is
// (MaxValueLen-2)/2 bytes. Data shorter than one segment is stored as a
// single hex value; otherwise key holds "segments=<n>" and the keys
// "<key>-seg-<i>/<n>", i = 1..n, hold the hex of each segment. Keys are
// checked (including the longest segment key) before anything is sent.
func (c *Client) PutBytes(ctx context.Context, key string, b []byte) error {
	seg := segmentSize(c.valMax)
	if len(b) < seg {
		return c.Put(ctx, key, encodeHex(b))
	}
	n := (len(b) + seg - 1) / seg
	if err := c.checkKey("put", key); err != nil {
		return err
	}
	if err := c.checkKey("put", segmentKey(key, n, n)); err != nil {
		return fmt.Errorf("pmi: put_bytes %q: %d bytes need %d segments, and the segment keys are too long: %w", clip(key), len(b), n, err)
	}
	if err := c.Put(ctx, key, segmentsPrefix+strconv.Itoa(n)); err != nil {
		return err
	}
	for i := range n {
		chunk := b[i*seg : min((i+1)*seg, len(b))]
		if err := c.Put(ctx, segmentKey(key, i+1, n), encodeHex(chunk)); err != nil {
			return err
		}
	}
	return nil
}

// GetBytes reads a value PutBytes (or MPICH's put_ex) stored under key,
// following "segments=<n>" to the segment keys. Hex digits of either case
// are accepted. A missing key or segment gives an error matching ErrNoKey.
func (c *Client) GetBytes(ctx context.Context, key string) ([]byte, error) {
	v, err := c.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.decodeValue(ctx, key, v, false)
}

// decodeValue decodes v, the value of key, fetching its segments (with
// GetMany, pipelined or not) when v names them.
func (c *Client) decodeValue(ctx context.Context, key, v string, pipelined bool) ([]byte, error) {
	count, ok := strings.CutPrefix(v, segmentsPrefix)
	if !ok {
		b, err := decodeHex(v)
		if err != nil {
			return nil, fmt.Errorf("pmi: get_bytes %q: %w", clip(key), err)
		}
		return b, nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 || n > maxSegments {
		return nil, fmt.Errorf("pmi: get_bytes %q: value %q: want segments=<n> with n in [1, %d]", clip(key), clip(v), maxSegments)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = segmentKey(key, i+1, n)
	}
	segs, err := c.GetMany(ctx, keys, pipelined)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, min(n, 64)*segmentSize(c.valMax))
	for i, s := range segs {
		if out, err = appendDecodeHex(out, s); err != nil {
			return nil, fmt.Errorf("pmi: get_bytes %q: segment %d/%d: %w", clip(key), i+1, n, err)
		}
	}
	return out, nil
}

// segmentSize is MPICH's segment size in bytes for a usable value length:
// room for the hex digits plus a NUL and a spare byte.
func segmentSize(valMax int) int { return (valMax - 2) / 2 }

// segmentKey names segment i of n of key, as MPICH does.
func segmentKey(key string, i, n int) string {
	return key + "-seg-" + strconv.Itoa(i) + "/" + strconv.Itoa(n)
}

// encodeHex encodes b as upper-case hex, MPICH's "%02X" per byte.
func encodeHex(b []byte) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 2*len(b))
	for i, x := range b {
		out[2*i] = digits[x>>4]
		out[2*i+1] = digits[x&0x0f]
	}
	return string(out)
}

// decodeHex decodes hex of either case; odd lengths and other characters are
// errors (MPICH asserts on them).
func decodeHex(s string) ([]byte, error) {
	b, err := appendDecodeHex(make([]byte, 0, len(s)/2), s)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// appendDecodeHex appends the bytes s encodes to dst, decoding straight from
// the string (hex.DecodeString would first copy it). It fails as
// hex.DecodeString does: on the first invalid character, else on an odd
// length.
func appendDecodeHex(dst []byte, s string) ([]byte, error) {
	i := 0
	for ; i+1 < len(s); i += 2 {
		hi, lo := hexValue[s[i]], hexValue[s[i+1]]
		switch {
		case hi > 0x0f:
			return dst, notHex(hex.InvalidByteError(s[i]))
		case lo > 0x0f:
			return dst, notHex(hex.InvalidByteError(s[i+1]))
		}
		dst = append(dst, hi<<4|lo)
	}
	if i < len(s) {
		if hexValue[s[i]] > 0x0f {
			return dst, notHex(hex.InvalidByteError(s[i]))
		}
		return dst, notHex(hex.ErrLength)
	}
	return dst, nil
}

func notHex(err error) error { return fmt.Errorf("value is not hex: %w", err) }

// hexValue maps a hex digit of either case to its value and every other
// byte to 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range byte(10) {
		t['0'+i] = i
	}
	for i := range byte(6) {
		t['a'+i], t['A'+i] = 10+i, 10+i
	}
	return t
}()
