//go:build linux

package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pair returns the two ends of a nonblocking socketpair as Conns, and the
// files under them; the test's cleanup closes both.
func pair(t *testing.T) (a, b *Conn, fa, fb *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	fa, fb = os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { fa.Close(); fb.Close() })
	if a, err = NewConn(fa); err != nil {
		t.Fatal(err)
	}
	if b, err = NewConn(fb); err != nil {
		t.Fatal(err)
	}
	return a, b, fa, fb
}

// TestConn: what one end writes the other reads whole, however much it is
// (a write larger than the socket's buffer waits in the poller until the
// reader makes room); a closed peer reads as io.EOF and fails a write
// with EPIPE; a deadline ends a read that would wait.
func TestConn(t *testing.T) {
	for _, n := range []int{1, 100, 64 << 10, 4 << 20} {
		a, b, _, _ := pair(t)
		want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		errc := make(chan error, 1)
		go func() {
			_, err := a.Write(want)
			errc <- err
		}()
		got := make([]byte, 0, n)
		buf := make([]byte, 32<<10)
		for len(got) < n {
			m, err := b.Read(buf)
			if err != nil {
				t.Fatalf("%d bytes: Read after %d: %v", n, len(got), err)
			}
			got = append(got, buf[:m]...)
		}
		if err := <-errc; err != nil {
			t.Fatalf("%d bytes: Write: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read back different bytes", n)
		}
	}

	_, b, fa, fb := pair(t)
	if n, err := b.Read(nil); n != 0 || err != nil {
		t.Errorf("Read of no bytes = %d, %v; want 0, nil", n, err)
	}
	if err := fb.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read with nothing to read past its deadline: %v; want os.ErrDeadlineExceeded", err)
	}
	fa.Close()
	if err := fb.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read from a closed peer = %d, %v; want 0, io.EOF", n, err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Write to a closed peer: %v; want EPIPE", err)
	}
}
