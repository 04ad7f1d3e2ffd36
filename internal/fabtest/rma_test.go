package fabtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// regions is an in-process RMA fabric: exposed buffers by key.
type regions struct {
	mu   sync.Mutex
	bufs map[uint64][]byte
}

// memRMA adds one-sided writes and reads to an in-process Conn. It writes
// a word at a time with atomic operations, in address order, so that a
// poller's atomic loads see the last byte last, as they would a DMA's.
type memRMA struct {
	fabric.Conn
	r *regions
}

func (m memRMA) Expose(b []byte) ([]byte, func() error, error) {
	m.r.mu.Lock()
	defer m.r.mu.Unlock()
	id := uint64(len(m.r.bufs) + 1)
	m.r.bufs[id] = b
	return binary.LittleEndian.AppendUint64(nil, id), func() error { return nil }, nil
}

// region returns the whole region of key (its base is aligned, as heap
// buffers are) after checking off and n against it.
func (m memRMA) region(key []byte, off, n int) ([]byte, error) {
	if len(key) != 8 {
		return nil, errors.New("bad key")
	}
	m.r.mu.Lock()
	b := m.r.bufs[binary.LittleEndian.Uint64(key)]
	m.r.mu.Unlock()
	if off < 0 || off+n > len(b) {
		return nil, fmt.Errorf("%d bytes at %d past the region's %d", n, off, len(b))
	}
	return b, nil
}

// word returns the aligned word of b that holds byte i, and the shift of
// that byte in it (little-endian).
func word(b []byte, i int) (*uint32, uint) {
	return (*uint32)(unsafe.Pointer(&b[i&^3])), uint(i&3) * 8
}

func (m memRMA) Write(_ context.Context, key []byte, off int, b []byte) error {
	dst, err := m.region(key, off, len(b))
	for i := 0; err == nil && i < len(b); {
		w, _ := word(dst, off+i)
		for {
			old := atomic.LoadUint32(w)
			v, j := old, i
			for ; j < len(b) && (off+j)&^3 == (off+i)&^3; j++ {
				_, sh := word(dst, off+j)
				v = v&^(0xff<<sh) | uint32(b[j])<<sh
			}
			if atomic.CompareAndSwapUint32(w, old, v) {
				i = j
				break
			}
		}
	}
	return err
}

func (m memRMA) Read(_ context.Context, key []byte, off int, b []byte) error {
	src, err := m.region(key, off, len(b))
	for i := range b {
		if err != nil {
			break
		}
		w, sh := word(src, off+i)
		b[i] = byte(atomic.LoadUint32(w) >> sh)
	}
	return err
}

// runRMA runs test between two ends of an in-process RMA pipe.
func runRMA(t *testing.T, o Options, noRMA bool) (Outcome, error, error) {
	t.Helper()
	a, b := pipe.Pair()
	defer a.Close()
	defer b.Close()
	r := &regions{bufs: map[uint64][]byte{}}
	pa, pb := Peer{Link: ConnLink{Conn: a}, Initiator: true, Name: "responder", Timeout: 5 * time.Second},
		Peer{Link: ConnLink{Conn: b}, Name: "initiator", Timeout: 5 * time.Second}
	if !noRMA {
		pa.RMA, pb.RMA = memRMA{a, r}, memRMA{b, r}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var er error
	wg.Go(func() { _, er = Run(ctx, pb, Options{Test: o.Test}) })
	out, ei := Run(ctx, pa, o)
	if ei != nil {
		cancel()
	}
	wg.Wait()
	return out, ei, er
}

func TestRunRMA(t *testing.T) {
	for _, o := range []Options{
		{Test: RMAPingPong, Sizes: []int{1, 7, 4096, 64}, Iters: 300, Warmup: 3, Window: 1, Check: true},
		{Test: RMABW, Sizes: []int{0, 13, 65536}, Iters: 100, Warmup: 2, Window: 16, Check: true},
	} {
		t.Run(o.Test, func(t *testing.T) {
			out, ei, er := runRMA(t, o, false)
			if ei != nil || er != nil {
				t.Fatalf("initiator: %v; responder: %v", ei, er)
			}
			for i, row := range out.Rows {
				want := int64(2 * o.Iters)
				if o.Test == RMABW {
					want = o.Iters
				}
				if row.Size != o.Sizes[i] || row.Sent != o.Iters || row.Acked != o.Iters || row.Xfers != want || row.Defects != 0 {
					t.Errorf("row %+v", row)
				}
			}
		})
	}
	if _, ei, _ := runRMA(t, Options{Test: RMABW, Sizes: []int{8}, Iters: 4, Window: 2}, true); !errors.Is(ei, fabric.ErrNoRMA) {
		t.Errorf("no RMA: %v", ei)
	}
	if err := (&Options{Test: RMAPingPong, Sizes: []int{0}, Window: 1}).Validate(); err == nil {
		t.Error("rma_pingpong of 0 bytes accepted")
	}
}
