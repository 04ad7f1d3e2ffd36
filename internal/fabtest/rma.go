package fabtest

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// exchangeKeys exposes this end's receive buffer to the other end and
// learns the other end's key: the initiator first, then the responder.
func (r *runner) exchangeKeys(b *buffers) (func() error, error) {
	if r.p.RMA == nil {
		return nil, fmt.Errorf("%s: %w", r.o.Test, fabric.ErrNoRMA)
	}
	key, release, err := r.p.RMA.Expose(b.recv)
	if err != nil {
		return nil, fmt.Errorf("expose the receive buffer: %w", err)
	}
	send := func() error {
		if err := r.p.Link.Send(r.ctx, key); err != nil {
			return fmt.Errorf("send the RMA key to %s: %w", r.p.Name, err)
		}
		return nil
	}
	recv := func() error {
		k := make([]byte, 4096)
		n, err := r.p.Link.Recv(r.ctx, k)
		if err != nil {
			return fmt.Errorf("receive the RMA key from %s: %w", r.p.Name, err)
		}
		b.peerKey = k[:n]
		return nil
	}
	steps := []func() error{send, recv}
	if !r.p.Initiator {
		steps = []func() error{recv, send}
	}
	for _, f := range steps {
		if err := f(); err != nil {
			_ = release()
			return nil, err
		}
	}
	r.progress.Add(2)
	return release, nil
}

// write RMA-writes b into the other end's buffer at offset 0.
func (x *sizeRun) write(b []byte) error {
	if err := x.r.p.RMA.Write(x.r.ctx, x.b.peerKey, 0, b); err != nil {
		return fmt.Errorf("RMA write to %s: %w", x.r.p.Name, err)
	}
	x.r.progress.Add(1)
	return nil
}

// rmaWindow is the initiator's unit of rma_bw: m writes, then the count
// as a message, then the acknowledgement.
func (x *sizeRun) rmaWindow() unitStep {
	send := x.b.send[:x.size]
	return func(m int64) (int64, error) {
		for range m {
			if err := x.write(send); err != nil {
				return 0, err
			}
		}
		if err := x.r.sendInt(x.b.ctl[:], m); err != nil {
			return 0, err
		}
		if _, err := x.r.p.Link.Recv(x.r.ctx, x.b.ctl[:]); err != nil {
			return 0, fmt.Errorf("receive acknowledgement from %s: %w", x.r.p.Name, err)
		}
		x.r.progress.Add(1)
		return 0, nil
	}
}

// rmaWindowAck is the responder's unit of rma_bw: the window's count, a
// check of what the writes left (with Check), the acknowledgement. It
// counts the writes the initiator says it made (they left no trace here
// but the bytes).
func (x *sizeRun) rmaWindowAck() unitStep {
	return func(m int64) (int64, error) {
		n, err := x.r.recvInt(x.b.ctl[:])
		if err != nil {
			return 0, err
		}
		if n != m {
			return 0, fmt.Errorf("%s wrote a window of %d, the plan says %d", x.r.p.Name, n, m)
		}
		var bad int64
		if x.r.o.Check && string(x.b.recv[:x.size]) != string(x.b.want[:x.size]) {
			bad = 1
		}
		return bad, x.sendData(x.b.ctl[:0])
	}
}

// rmaPingPong is either end's unit of rma_pingpong: the initiator writes
// and then polls its own buffer for the answer's last byte; the responder
// polls, then writes. The last byte of every iteration differs from the
// one before (1 to 255 in turn), so a poll cannot see a stale write.
func (x *sizeRun) rmaPingPong() unitStep {
	send := x.b.send[:x.size]
	var marker byte
	return func(int64) (int64, error) {
		marker = marker%255 + 1
		if x.r.p.Initiator {
			send[x.size-1] = marker
			if err := x.write(send); err != nil {
				return 0, err
			}
			return x.poll(marker)
		}
		bad, err := x.poll(marker)
		if err != nil {
			return 0, err
		}
		send[x.size-1] = marker
		return bad, x.write(send)
	}
}

// clearForPolls zeroes this end's receive buffer for a size of the RMA
// ping-pong, so that no byte a larger size left there passes for this
// size's marker, and then syncs: the initiator says it has cleared, the
// responder answers that it has, and only then does either write.
func (r *runner) clearForPolls(b *buffers, size int) error {
	clear(b.recv[:size])
	if r.p.Initiator {
		if err := r.sendInt(b.ctl[:], int64(size)); err != nil {
			return err
		}
		_, err := r.recvInt(b.ctl[:])
		return err
	}
	if _, err := r.recvInt(b.ctl[:]); err != nil {
		return err
	}
	return r.sendInt(b.ctl[:], int64(size))
}

// pollCheck is how many spins pass between looks at ctx and yields.
const pollCheck = 256

// poll waits until the last byte of this size in the receive buffer is
// marker, the other end's write having landed, and with Check compares the
// rest with the other end's pattern. On a transport whose writes land when
// the target reads them (fabric.Progresser: tcp), it runs Progress between
// looks, as a libfabric program with manual progress polls its CQ.
func (x *sizeRun) poll(marker byte) (int64, error) {
	i := x.size - 1
	word := (*uint32)(unsafe.Pointer(&x.b.recv[i&^3]))
	shift := uint(i&3) * 8 // little-endian: byte i&3 of the word
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		shift = uint(3-i&3) * 8
	}
	progress, _ := x.r.p.RMA.(fabric.Progresser)
	for n := 1; byte(atomic.LoadUint32(word)>>shift) != marker; n++ {
		if progress != nil {
			// The write lands when this side's transport reads it.
			if err := progress.Progress(x.r.ctx); err != nil {
				return 0, fmt.Errorf("wait for %s's RMA write: %w", x.r.p.Name, err)
			}
			continue
		}
		if n%pollCheck == 0 {
			if err := x.r.ctx.Err(); err != nil {
				return 0, fmt.Errorf("wait for %s's RMA write: %w", x.r.p.Name, err)
			}
			runtime.Gosched()
		}
	}
	x.r.progress.Add(1)
	if x.r.o.Check && string(x.b.recv[:i]) != string(x.b.want[:i]) {
		return 1, nil
	}
	return 0, nil
}
