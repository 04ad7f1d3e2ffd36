package accept

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// errNotRank is a stray's handshake failure.
var errNotRank = errors.New("not a rank")

// errRefused is a rank's handshake failure.
var errRefused = errors.New("refused")

// testConn is the Conn the test handshake makes: only its rank matters.
type testConn struct {
	fabric.Conn
	rank int
}

func (c *testConn) Close() error { return nil }

// handshake reads one byte: 'r' is a rank (the rank is the next byte), 'x'
// a rank the handshake refuses, anything else a stray.
func handshake(tc *net.TCPConn) (fabric.Conn, int, error) {
	var b [2]byte
	if _, err := io.ReadFull(tc, b[:1]); err != nil {
		return nil, 0, err
	}
	switch b[0] {
	case 'r':
		if _, err := io.ReadFull(tc, b[1:]); err != nil {
			return nil, 0, err
		}
		return &testConn{rank: int(b[1])}, int(b[1]), nil
	case 'x':
		return nil, 0, errRefused
	}
	return nil, 0, errNotRank
}

func isStray(err error) bool { return errors.Is(err, errNotRank) || errors.Is(err, io.EOF) }

// TestLoop checks which connections Accept returns, skips and fails on.
func TestLoop(t *testing.T) {
	cases := []struct {
		name string
		// dialers are what each dialer sends, in order, before it hangs
		// up; "" hangs up at once, "-" stays silent, "r+" sends "r" and
		// then stays silent.
		dialers []string
		timeout time.Duration // the handshake timeout; 0: 5s
		ctx     time.Duration // the context's timeout; 0: none
		closed  bool          // the listener is closed before Accept
		rank    int           // the rank Accept returns; -1: it fails
		want    error
		wantMsg string
	}{
		{name: "rank", dialers: []string{"r\x07"}, rank: 7},
		{name: "strays first", dialers: []string{"?", "", "r\x03"}, rank: 3},
		{name: "refused", dialers: []string{"x"}, rank: -1, want: errRefused, wantMsg: ": handshake with 127.0.0.1:"},
		{name: "rank silent past the timeout", dialers: []string{"r+"}, timeout: 50 * time.Millisecond, rank: -1,
			want: os.ErrDeadlineExceeded, wantMsg: "no answer within 50ms"},
		{name: "no dialer", ctx: 50 * time.Millisecond, rank: -1, want: context.DeadlineExceeded},
		{name: "silent dialer", dialers: []string{"-"}, ctx: 50 * time.Millisecond, rank: -1,
			want: context.DeadlineExceeded, wantMsg: "handshake with 127.0.0.1:"},
		{name: "closed", closed: true, rank: -1, want: fabric.ErrClosed, wantMsg: "listener closed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			timeout := c.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			l := &Loop{Transport: "test", Address: "test://" + ln.Addr().String(), Ln: ln, Timeout: timeout, Handshake: handshake, Stray: isStray}
			for _, d := range c.dialers {
				nc, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				switch d {
				case "-": // silent until the test ends
				case "": // hangs up at once
					nc.Close()
				case "r+":
					if _, err := io.WriteString(nc, "r"); err != nil {
						t.Fatal(err)
					}
				default:
					if _, err := io.WriteString(nc, d); err != nil {
						t.Fatal(err)
					}
					nc.(*net.TCPConn).CloseWrite()
				}
			}
			if c.closed {
				ln.Close()
			}
			ctx := t.Context()
			if c.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.ctx)
				defer cancel()
			}
			conn, rank, err := l.Accept(ctx)
			if c.rank >= 0 {
				if err != nil || rank != c.rank || conn.(*testConn).rank != c.rank {
					t.Fatalf("Accept = %v, %d, %v; want rank %d", conn, rank, err, c.rank)
				}
				return
			}
			prefix := "test: accept on " + l.Addr() + ": "
			if conn != nil || rank != -1 || !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.wantMsg) {
				t.Fatalf("Accept = %v, %d, %v; want nil, -1 and an error %q… matching %v holding %q", conn, rank, err, prefix, c.want, c.wantMsg)
			}
		})
	}
}
