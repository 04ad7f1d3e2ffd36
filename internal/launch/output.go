package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxPiece bounds the partial line kept for a stream: a line longer than
// this that arrives in more than one read is passed on in pieces of at most
// maxPiece bytes, and only its first piece carries the rank prefix.
const maxPiece = 4096

// readSize is the forwarder's one read buffer, shared by every stream.
const readSize = 64 << 10

// lineWriter serializes writes from the forwarder and the launcher's own
// diagnostics onto one writer.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) write(b []byte) {
	lw.mu.Lock()
	lw.w.Write(b) // a closed stdout must not stop the job; errors are dropped as mpiexec does
	lw.mu.Unlock()
}

// Write makes a lineWriter an io.Writer for the launcher's diagnostics.
func (lw *lineWriter) Write(b []byte) (int, error) {
	lw.write(b)
	return len(b), nil
}

// stream is one rank's stdout or stderr pipe. Only the forwarder's loop
// touches it once added.
type stream struct {
	fd     int
	id     int // index in forwarder.streams
	lw     *lineWriter
	prefix []byte // "[rank] " when tagging, else nil
	carry  []byte // the partial line read so far
	mid    bool   // a piece of a long line was written: the rest has no prefix
}

// forwarder copies the ranks' stdout and stderr pipes line by line to the
// job's writers, so that lines of different ranks never interleave. One
// goroutine serves every pipe through one epoll set with one read buffer:
// a goroutine and a buffered reader per pipe, and the runtime poller's
// registration of each pipe end (four fcntl and four epoll_ctl calls per
// rank, besides the pipes), were the launcher's largest cost per rank.
// The read ends stay blocking: epoll is level-triggered and each readiness
// gets one read, which does not block. The epoll set itself is non-blocking
// and waited on through the runtime's poller (an epoll set is pollable), so
// the loop's goroutine never holds a P in a blocking system call.
type forwarder struct {
	ep   int // epoll set
	epf  *os.File
	rc   syscall.RawConn
	wake int // eventfd: new state for the loop to look at
	tag  bool
	outW [2]*lineWriter // stdout, stderr
	done chan struct{}  // closed when the loop has returned

	mu      sync.Mutex
	streams []*stream // by id, 2*rank (stdout) and 2*rank+1 (stderr)
	open    int       // streams added and not yet at EOF
	noMore  bool      // no stream will be added
	stop    bool      // close what is still open and return
}

// newForwarder starts the loop for a job of n ranks.
func newForwarder(n int, stdout, stderr *lineWriter, tag bool) (*forwarder, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("output forwarder: epoll_create1: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return nil, fmt.Errorf("output forwarder: eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, fmt.Errorf("output forwarder: epoll_ctl: %w", err)
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, fmt.Errorf("output forwarder: set O_NONBLOCK: %w", err)
	}
	epf := os.NewFile(uintptr(ep), "forwarder-epoll")
	rc, err := epf.SyscallConn()
	if err != nil {
		epf.Close()
		unix.Close(wake)
		return nil, fmt.Errorf("output forwarder: %w", err)
	}
	f := &forwarder{ep: ep, epf: epf, rc: rc, wake: wake, tag: tag, outW: [2]*lineWriter{stdout, stderr},
		done: make(chan struct{}), streams: make([]*stream, 2*n)}
	go f.loop()
	return f, nil
}

// add starts forwarding the stdout and stderr read ends of the rank at
// index slot of the forwarder's (rank is the one its lines are tagged
// with), which the forwarder then owns and closes.
func (f *forwarder) add(slot, rank, stdoutFD, stderrFD int) error {
	var errs []error
	for i, fd := range []int{stdoutFD, stderrFD} {
		id := 2*slot + i
		s := &stream{fd: fd, id: id, lw: f.outW[i]}
		if f.tag {
			s.prefix = []byte("[" + strconv.Itoa(rank) + "] ")
		}
		f.mu.Lock()
		f.streams[id] = s
		f.open++
		f.mu.Unlock()
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(id)}
		if err := unix.EpollCtl(f.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			f.mu.Lock()
			f.streams[id] = nil
			f.open--
			f.mu.Unlock()
			unix.Close(fd)
			errs = append(errs, fmt.Errorf("forward rank %d's output: epoll_ctl: %w", rank, err))
		}
	}
	return errors.Join(errs...)
}

// finish says no more streams are coming and waits for every stream to
// reach EOF; after grace it closes those a leftover process keeps open.
// The forwarder is gone when finish returns.
func (f *forwarder) finish(grace time.Duration) {
	f.poke(func() { f.noMore = true })
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-f.done:
	case <-t.C:
		f.poke(func() { f.stop = true })
		<-f.done
	}
	f.epf.Close()
	unix.Close(f.wake)
}

// poke changes the loop's state under the lock and wakes it.
func (f *forwarder) poke(change func()) {
	f.mu.Lock()
	change()
	f.mu.Unlock()
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	for {
		if _, err := unix.Write(f.wake, one); !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

func (f *forwarder) loop() {
	defer close(f.done)
	events := make([]unix.EpollEvent, 128)
	buf := make([]byte, readSize)
	var out []byte
	err := f.rc.Read(func(fd uintptr) bool {
		for {
			n, err := unix.EpollWait(int(fd), events, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				// The set is unusable: give up on what remains
				// rather than spin; the ranks' writes then fail
				// with EPIPE.
				f.closeAll(&out)
				return true
			}
			f.serve(events[:n], buf, &out)
			f.mu.Lock()
			stop, over := f.stop, f.noMore && f.open == 0
			f.mu.Unlock()
			if stop {
				f.closeAll(&out)
				return true
			}
			if over {
				return true
			}
			if n == 0 {
				return false // wait until the set has events
			}
		}
	})
	if err != nil {
		f.closeAll(&out) // the poller failed: as for a broken set
	}
}

// serve handles one batch of events: one read for each ready stream.
func (f *forwarder) serve(events []unix.EpollEvent, buf []byte, out *[]byte) {
	for _, ev := range events {
		if ev.Fd < 0 {
			var b [8]byte
			unix.Read(f.wake, b[:])
			continue
		}
		f.mu.Lock()
		s := f.streams[ev.Fd]
		f.mu.Unlock()
		if s == nil {
			continue
		}
		m, err := unix.Read(s.fd, buf)
		if m > 0 {
			*out = s.consume((*out)[:0], buf[:m])
			if len(*out) > 0 {
				s.lw.write(*out)
			}
			continue
		}
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		f.eof(s, out) // EOF, or an error that ends the stream
	}
}

// eof passes on s's partial last line, closes its pipe and forgets it.
func (f *forwarder) eof(s *stream, out *[]byte) {
	if len(s.carry) > 0 {
		*out = s.piece((*out)[:0], s.carry)
		s.lw.write(*out)
		s.carry = nil
	}
	unix.Close(s.fd) // closing the only descriptor also removes it from the set
	f.mu.Lock()
	f.streams[s.id] = nil
	f.open--
	f.mu.Unlock()
}

// closeAll ends every stream still open.
func (f *forwarder) closeAll(out *[]byte) {
	f.mu.Lock()
	open := make([]*stream, 0, f.open)
	for _, s := range f.streams {
		if s != nil {
			open = append(open, s)
		}
	}
	f.mu.Unlock()
	for _, s := range open {
		f.eof(s, out)
	}
}

// consume appends to out what b completes: each whole line with its prefix,
// and a piece of maxPiece bytes when a partial line grows that long; the
// rest of a partial line stays in s.carry.
func (s *stream) consume(out, b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(s.carry)+len(b) < maxPiece {
				s.carry = append(s.carry, b...)
				return out
			}
			k := maxPiece - len(s.carry)
			out = s.piece(out, s.carry, b[:k])
			s.carry, s.mid = s.carry[:0], true
			b = b[k:]
			continue
		}
		out = s.piece(out, s.carry, b[:i+1])
		s.carry, s.mid = s.carry[:0], false
		b = b[i+1:]
	}
	return out
}

// piece appends the prefix (unless it continues a long line) and parts.
func (s *stream) piece(out []byte, parts ...[]byte) []byte {
	if !s.mid {
		out = append(out, s.prefix...)
	}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
