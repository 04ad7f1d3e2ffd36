package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The control protocol joins the launcher and its per-host proxies (see
// hosts.go and proxy.go) over one TCP connection per proxy, which the
// proxy opens. A frame is
//
//	length  uint32, big-endian: the bytes that follow, 1 to maxFrame
//	type    one byte (the ctl* constants)
//	body    fields in order: unsigned varints (binary.AppendUvarint) and
//	        strings (a varint length, then the bytes); a frame's fields
//	        are its type's, nothing more
//
// The launcher speaks first (ctlHello, a nonce); the proxy answers with
// ctlAuth (its index in the job, its version, a nonce of its own and the
// HMAC of both nonces under the job's secret, see control_auth.go); the
// launcher checks it and sends ctlJob (its own HMAC, then the proxy's
// part of the job) or ctlRefuse. After that, frames go both ways in any
// order:
//
//	proxy → launcher   ctlEvents (the spawner's reports of its ranks),
//	                   ctlNotes (PMI progress notes), ctlBarrierIn (its
//	                   ranks entered a barrier: the puts since the last),
//	                   ctlFail (its PMI server's failure), ctlOutput
//	                   (ranks' output lines), ctlDone (every rank reaped,
//	                   the output flushed), ctlBeat
//	launcher → proxy   ctlBarrierOut (the job's puts: leave the barrier),
//	                   ctlSignal, ctlBeat, ctlEnd (the job is over)
//
// Either side sends ctlBeat every beatInterval and takes a connection
// silent for beatTimeout as lost.

// Frame types.
const (
	ctlHello byte = iota + 1
	ctlAuth
	ctlJob
	ctlRefuse
	ctlEvents
	ctlNotes
	ctlBarrierIn
	ctlBarrierOut
	ctlFail
	ctlOutput
	ctlSignal
	ctlBeat
	ctlDone
	ctlEnd
	ctlLast = ctlEnd
)

// maxFrame bounds a frame: a barrier's puts for a job of MaxRanks ranks
// of a few keys each fit.
const maxFrame = 64 << 20

// ctlProtocol is the control protocol's version, in ctlHello and the
// proxy's stdin line; a proxy of another version is refused.
const ctlProtocol = 1

// errFrame is a frame that does not decode: the peer is not a proxy (or a
// launcher) of this version, or the stream is corrupt.
var errFrame = errors.New("malformed control frame")

// frame is one encoded frame being built: the length, the type, the body.
type frame struct{ b []byte }

// newFrame starts a frame of type typ.
func newFrame(typ byte) *frame {
	f := &frame{b: make([]byte, 5, 64)}
	f.b[4] = typ
	return f
}

func (f *frame) uint(v uint64) *frame { f.b = binary.AppendUvarint(f.b, v); return f }

func (f *frame) int(v int) *frame { return f.uint(uint64(v)) }

// sint writes a signed integer (an iteration, an exit code).
func (f *frame) sint(v int64) *frame { f.b = binary.AppendVarint(f.b, v); return f }

func (f *frame) bool(v bool) *frame {
	if v {
		return f.uint(1)
	}
	return f.uint(0)
}

func (f *frame) str(s string) *frame {
	f.b = binary.AppendUvarint(f.b, uint64(len(s)))
	f.b = append(f.b, s...)
	return f
}

func (f *frame) bytes(s []byte) *frame {
	f.b = binary.AppendUvarint(f.b, uint64(len(s)))
	f.b = append(f.b, s...)
	return f
}

// done fills in the length and returns the frame's bytes.
func (f *frame) done() []byte {
	binary.BigEndian.PutUint32(f.b, uint32(len(f.b)-4))
	return f.b
}

// maxHandshakeFrame bounds the frames of the handshake, before the peer
// has proved anything: a stranger on the control port makes the launcher
// hold no more than this.
const maxHandshakeFrame = 4 << 10

// readFrame reads one frame from r into buf (grown as needed) and returns
// its type and body, which share buf.
func readFrame(r io.Reader, buf []byte) (typ byte, body, grown []byte, err error) {
	return readFrameMax(r, buf, maxFrame)
}

// readFrameMax is readFrame for frames of at most max bytes.
func readFrameMax(r io.Reader, buf []byte, max uint32) (typ byte, body, grown []byte, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, buf, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 1 || n > max {
		return 0, nil, buf, fmt.Errorf("%w: length %d outside [1, %d]", errFrame, n, max)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, buf, err
	}
	if buf[0] < ctlHello || buf[0] > ctlLast {
		return 0, nil, buf, fmt.Errorf("%w: type %d", errFrame, buf[0])
	}
	return buf[0], buf[1:], buf, nil
}

// fields decodes a frame's body; the first error sticks and every later
// read returns zero values, so a decoder reads every field and checks
// err once.
type fields struct {
	b   []byte
	err error
}

func (d *fields) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errFrame, what)
	}
	d.b = nil
}

func (d *fields) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a varint that must be below limit (a rank, a count).
func (d *fields) int(limit int) int {
	v := d.uint()
	if v >= uint64(limit) {
		d.fail(fmt.Sprintf("%d not below %d", v, limit))
		return 0
	}
	return int(v)
}

func (d *fields) bool() bool { return d.int(2) == 1 }

func (d *fields) sint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads the length of a list whose items take at least one byte
// each: no more than the bytes left.
func (d *fields) count() int {
	return d.int(len(d.b) + 1)
}

// prealloc is the capacity to allocate for a list of n items read from a
// frame: n, up to a bound, since n is the peer's word.
func prealloc(n int) int { return min(n, 1024) }

// bytes reads a string's bytes, sharing the frame's buffer.
func (d *fields) bytes() []byte {
	n := d.uint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail("string longer than the frame")
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *fields) str() string { return string(d.bytes()) }

// end checks that the body held nothing more, and returns the first error.
func (d *fields) end() error {
	if d.err == nil && len(d.b) > 0 {
		d.fail(fmt.Sprintf("%d bytes after the last field", len(d.b)))
	}
	return d.err
}
