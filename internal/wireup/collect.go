package wireup

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"sync"
)

// collectorKey is the KVS key of rank 0's results address. The phase times
// travel over TCP after finalize, because the finalize phase is one of them
// and PMI cannot be used after it.
const collectorKey = "wireup-collector"

// collector is rank 0's TCP listener for the other ranks' times.
type collector struct {
	ln   net.Listener
	size int
}

func newCollector(size int) (*collector, error) {
	// No keep-alive: each connection carries one record and closes, and
	// its four setsockopts a connection were a cost per rank.
	lc := net.ListenConfig{KeepAlive: -1}
	ln, err := lc.Listen(context.Background(), "tcp", ":0")
	if err != nil {
		return nil, fmt.Errorf("listen for results: %w", err)
	}
	return &collector{ln: ln, size: size}, nil
}

// addr returns "host:port,127.0.0.1:port": the host name for ranks on other
// nodes, loopback as a fallback on this one; publish, when given, first.
func (c *collector) addr(publish string) string {
	_, port, _ := net.SplitHostPort(c.ln.Addr().String())
	var addrs []string
	if publish != "" {
		addrs = append(addrs, net.JoinHostPort(publish, port))
	}
	if host, err := os.Hostname(); err == nil {
		addrs = append(addrs, net.JoinHostPort(host, port))
	}
	return strings.Join(append(addrs, net.JoinHostPort("127.0.0.1", port)), ",")
}

func (c *collector) close() { c.ln.Close() }

// recordSize is the fixed part of a result record: the rank, then its
// phase times; a byte giving the length of the rank's host name and the
// name follow.
const recordSize = 4 + 8*len(phaseNames)

// maxHostLen bounds the host name in a record (a DNS name has at most 253
// bytes).
const maxHostLen = 255

// record is one rank's results as rank 0 collects them.
type record struct {
	times Times
	host  string
}

// gather waits for every other rank's record, until ctx ends.
func (c *collector) gather(ctx context.Context, own record) ([]record, error) {
	all := make([]record, c.size)
	seen := make([]bool, c.size)
	all[0], seen[0] = own, true
	stop := context.AfterFunc(ctx, func() { c.ln.Close() })
	defer stop()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for got := 1; got < c.size; got++ {
		conn, err := c.ln.Accept()
		if err != nil {
			wg.Wait()
			missing := []int{}
			for r, ok := range seen {
				if !ok {
					missing = append(missing, r)
				}
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("no results from ranks %v: %w", clipInts(missing), ctx.Err())
			}
			return nil, fmt.Errorf("accept: %w", err)
		}
		wg.Go(func() {
			defer conn.Close()
			if dl, ok := ctx.Deadline(); ok {
				conn.SetDeadline(dl)
			}
			r, rec, err := readRecord(conn, c.size)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				firstErr = errors.Join(firstErr, err)
			case seen[r]:
				firstErr = errors.Join(firstErr, fmt.Errorf("rank %d reported twice", r))
			default:
				all[r], seen[r] = rec, true
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return all, nil
}

func clipInts(v []int) string {
	if len(v) > 8 {
		return fmt.Sprint(v[:8]) + fmt.Sprintf(" and %d more", len(v)-8)
	}
	return fmt.Sprint(v)
}

func readRecord(r io.Reader, size int) (int, record, error) {
	var b [recordSize + 1 + maxHostLen]byte
	var rec record
	if _, err := io.ReadFull(r, b[:recordSize+1]); err != nil {
		return 0, rec, fmt.Errorf("read result record: %w", err)
	}
	rank := int(binary.BigEndian.Uint32(b[:4]))
	if rank <= 0 || rank >= size {
		return 0, rec, fmt.Errorf("result record names rank %d, outside [1, %d)", rank, size)
	}
	for i := range rec.times {
		rec.times[i] = math.Float64frombits(binary.BigEndian.Uint64(b[4+8*i:]))
	}
	n := int(b[recordSize])
	if _, err := io.ReadFull(r, b[recordSize+1:recordSize+1+n]); err != nil {
		return 0, rec, fmt.Errorf("read result record of rank %d: host name: %w", rank, err)
	}
	rec.host = string(b[recordSize+1 : recordSize+1+n])
	return rank, rec, nil
}

// sendTimes dials rank 0's collector (trying each advertised address) and
// sends this rank's record: its times and its host name, cut to
// maxHostLen bytes.
func sendTimes(ctx context.Context, addrs string, rank int, t Times, host string) error {
	conn, err := dialCollector(ctx, addrs, host)
	if err != nil {
		return err
	}
	return writeTimes(ctx, conn, rank, t, host)
}

// dialCollector connects to rank 0's collector, trying each advertised
// address in dialOrder; the error names every address tried.
func dialCollector(ctx context.Context, addrs, host string) (net.Conn, error) {
	var errs error
	d := net.Dialer{KeepAlive: -1} // one record, then close (see newCollector)
	for _, a := range dialOrder(splitComma(addrs), host) {
		conn, err := d.DialContext(ctx, "tcp", a)
		if err == nil {
			return conn, nil
		}
		errs = errors.Join(errs, err)
	}
	if errs == nil {
		errs = fmt.Errorf("no address in %q", addrs)
	}
	return nil, errs
}

// writeTimes sends this rank's record on conn, to rank 0's collector, and
// closes it.
func writeTimes(ctx context.Context, conn net.Conn, rank int, t Times, host string) error {
	host = host[:min(len(host), maxHostLen)]
	b := make([]byte, recordSize+1, recordSize+1+len(host))
	binary.BigEndian.PutUint32(b[:4], uint32(rank))
	for i, v := range t {
		binary.BigEndian.PutUint64(b[4+8*i:], math.Float64bits(v))
	}
	b[recordSize] = byte(len(host))
	b = append(b, host...)
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	_, err := conn.Write(b)
	if cerr := conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// dialOrder puts the loopback address first when rank 0's host name, the
// first address's, is this rank's own: it then reaches rank 0 without
// resolving the name (the resolver reads /etc/nsswitch.conf and
// /etc/hosts, or asks DNS, in every rank).
func dialOrder(addrs []string, host string) []string {
	if len(addrs) < 2 {
		return addrs
	}
	if h, _, err := net.SplitHostPort(addrs[0]); err != nil || h != host {
		return addrs
	}
	for i, a := range addrs[1:] {
		if h, _, err := net.SplitHostPort(a); err == nil && net.ParseIP(h).IsLoopback() {
			out := append([]string{a}, addrs[:i+1]...)
			return append(out, addrs[i+2:]...)
		}
	}
	return addrs
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
