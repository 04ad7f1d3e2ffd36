package io500

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
)

// Comm is what the IO500 engine needs of the job's communicator;
// *collectives.Comm satisfies it.
type Comm interface {
	Rank() int
	Size() int
	Barrier(ctx context.Context) error
	Bcast(ctx context.Context, buf []byte, root int) error
	Allgather(ctx context.Context, send, recv []byte) error
	Allreduce(ctx context.Context, send, recv []byte, dt collectives.Datatype, op collectives.Op) error
	Send(ctx context.Context, peer int, b []byte) error
	Recv(ctx context.Context, peer int, b []byte) (int, error)
}

// FindQuery is the IO500 find: files under Dir newer than the timestamp
// file, of exactly Size bytes, whose name contains Substr (pfind's
// `-newer FILE -size 3901c -name "*01*"`).
type FindQuery struct {
	Dir    string
	Newer  time.Time
	Size   int64
	Substr string
	// FS is the namespace walked.
	FS FS
	// Clock returns seconds (nil: the monotonic clock), for the walk's
	// time.
	Clock func() float64
	// Round bounds the work a rank does between two rebalancing steps.
	Round time.Duration
}

// FindResult is the job's find: the files that matched, every file seen,
// the entries that failed (vanished, unreadable), the time taken and the
// work moved between ranks.
type FindResult struct {
	Found, Total, Errors int64
	Seconds              float64
	Moved                int64 // work items handed from a busy rank to an idle one
}

// Rate is the job's find rate in kIOPS: files seen per second / 1000,
// IO500's score of the phase.
func (r FindResult) Rate() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Total) / r.Seconds / 1000
}

// work items: a directory to read, or a file to check (stat), by path,
// after the kind's byte ("d/data/ior-easy").
const (
	itemDir  = 'd'
	itemFile = 'f'
)

// findState is one rank's queue and counts.
type findState struct {
	q                    FindQuery
	queue                []string // item kind byte + path; taken from the end
	substr               []byte   // q.Substr
	found, total, errors int64
	moved                int64
}

// Find walks q.Dir over the ranks of c, every rank calling it. Rank 0
// starts with the top directory; the ranks work in rounds of at most
// q.Round, and after each round the ranks whose queue holds more than the
// mean hand the surplus to those below it (pfind's work stealing, done in
// step: every rank learns every queue's length, and the same plan of
// transfers is computed everywhere). The walk ends when every queue is
// empty. Directories are read in batches, their files counted and their
// names matched at once; only the files whose name matches are queued for
// a stat, which is what is shared between ranks.
func Find(ctx context.Context, c Comm, q FindQuery) (FindResult, error) {
	if q.Round <= 0 {
		q.Round = 20 * time.Millisecond
	}
	st := &findState{q: q, substr: []byte(q.Substr)}
	if q.Clock == nil {
		origin := time.Now()
		q.Clock = func() float64 { return time.Since(origin).Seconds() }
	}
	if err := c.Barrier(ctx); err != nil {
		return FindResult{}, fmt.Errorf("find: barrier: %w", err)
	}
	t0 := q.Clock()
	if c.Rank() == 0 {
		st.queue = append(st.queue, "d"+q.Dir)
	}
	counts := make([]byte, 8*c.Size())
	for {
		if err := ctx.Err(); err != nil {
			return FindResult{}, err
		}
		st.work(time.Now().Add(q.Round))
		var mine [8]byte
		binary.LittleEndian.PutUint64(mine[:], uint64(len(st.queue)))
		if err := c.Allgather(ctx, mine[:], counts); err != nil {
			return FindResult{}, fmt.Errorf("find: allgather: %w", err)
		}
		lens := make([]int64, c.Size())
		var sum int64
		for i := range lens {
			lens[i] = int64(binary.LittleEndian.Uint64(counts[8*i:]))
			sum += lens[i]
		}
		if sum == 0 {
			break
		}
		if err := st.rebalance(ctx, c, lens); err != nil {
			return FindResult{}, err
		}
	}
	var send, recv [8 * 4]byte
	for i, v := range []int64{st.found, st.total, st.errors, st.moved} {
		binary.LittleEndian.PutUint64(send[8*i:], uint64(v))
	}
	if err := c.Allreduce(ctx, send[:], recv[:], collectives.Int64, collectives.Sum); err != nil {
		return FindResult{}, fmt.Errorf("find: allreduce: %w", err)
	}
	r := FindResult{Seconds: q.Clock() - t0}
	for i, p := range []*int64{&r.Found, &r.Total, &r.Errors, &r.Moved} {
		*p = int64(binary.LittleEndian.Uint64(recv[8*i:]))
	}
	return r, nil
}

// work takes items from the queue until it is empty or the deadline
// passed (read after each directory and every 64 files).
func (st *findState) work(deadline time.Time) {
	for n := 0; len(st.queue) > 0; {
		it := st.queue[len(st.queue)-1]
		st.queue = st.queue[:len(st.queue)-1]
		if it[0] == itemDir {
			st.readDir(it[1:])
			n = 63 // a directory is much work: look at the clock after it
		} else {
			st.check(it[1:])
		}
		if n++; n%64 == 0 && time.Now().After(deadline) {
			return
		}
	}
}

// readDir counts dir's files, queues its subdirectories and the files
// whose name matches (a path is made only for what is queued: most files
// are counted by name alone).
func (st *findState) readDir(dir string) {
	err := st.q.FS.ReadDir(dir, func(name []byte, isDir bool) {
		if isDir {
			st.queue = append(st.queue, "d"+dir+"/"+string(name))
			return
		}
		st.total++
		if bytes.Contains(name, st.substr) {
			st.queue = append(st.queue, "f"+dir+"/"+string(name))
		}
	})
	if err != nil {
		st.errors++
	}
}

// check stats a file whose name matched and counts it when it is newer
// than the timestamp and of the size asked.
func (st *findState) check(path string) {
	size, mtime, err := st.q.FS.Stat(path)
	if err != nil {
		st.errors++
		return
	}
	if size == st.q.Size && mtime.After(st.q.Newer) {
		st.found++
	}
}

// transfer is n items from one rank to another.
type transfer struct{ from, to, n int }

// plan returns the transfers that bring every queue near the mean, in
// the order every rank carries them out (by giver, then taker: a rank
// never waits on a transfer that comes later in the order, so the plan
// cannot deadlock).
func plan(lens []int64) []transfer {
	var sum int64
	for _, l := range lens {
		sum += l
	}
	size := int64(len(lens))
	mean := sum / size
	need := make([]int64, len(lens))
	for i, l := range lens {
		need[i] = mean - l
		if int64(i) < sum%size {
			need[i]++ // the remainder goes to the first ranks
		}
	}
	var ts []transfer
	to := 0
	for from := range lens {
		for need[from] < 0 {
			for to < len(lens) && need[to] <= 0 {
				to++
			}
			if to == len(lens) {
				return ts
			}
			n := min(-need[from], need[to])
			ts = append(ts, transfer{from: from, to: to, n: int(n)})
			need[from] += n
			need[to] -= n
		}
	}
	return ts
}

// rebalance carries out this rank's part of plan(lens).
func (st *findState) rebalance(ctx context.Context, c Comm, lens []int64) error {
	me := c.Rank()
	for _, t := range plan(lens) {
		switch me {
		case t.from:
			items := st.queue[len(st.queue)-t.n:]
			st.queue = st.queue[:len(st.queue)-t.n]
			msg := encodeItems(items)
			var hdr [8]byte
			binary.LittleEndian.PutUint64(hdr[:], uint64(len(msg)))
			if err := c.Send(ctx, t.to, hdr[:]); err != nil {
				return fmt.Errorf("find: send work to rank %d: %w", t.to, err)
			}
			if err := c.Send(ctx, t.to, msg); err != nil {
				return fmt.Errorf("find: send work to rank %d: %w", t.to, err)
			}
			st.moved += int64(t.n)
		case t.to:
			var hdr [8]byte
			if _, err := c.Recv(ctx, t.from, hdr[:]); err != nil {
				return fmt.Errorf("find: receive work from rank %d: %w", t.from, err)
			}
			msg := make([]byte, binary.LittleEndian.Uint64(hdr[:]))
			n, err := c.Recv(ctx, t.from, msg)
			if err != nil {
				return fmt.Errorf("find: receive work from rank %d: %w", t.from, err)
			}
			items, err := decodeItems(msg[:n])
			if err != nil {
				return fmt.Errorf("find: work from rank %d: %w", t.from, err)
			}
			st.queue = append(st.queue, items...)
		}
	}
	return nil
}

// encodeItems lays items out as a length (uvarint) and the bytes, each.
func encodeItems(items []string) []byte {
	var b []byte
	for _, it := range items {
		b = binary.AppendUvarint(b, uint64(len(it)))
		b = append(b, it...)
	}
	return b
}

// decodeItems reads encodeItems' layout, refusing a malformed message.
func decodeItems(b []byte) ([]string, error) {
	var items []string
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, fmt.Errorf("malformed work message (%d bytes left)", len(b))
		}
		it := string(b[k : k+int(n)])
		if len(it) < 2 || (it[0] != itemDir && it[0] != itemFile) {
			return nil, fmt.Errorf("malformed work item %q", it)
		}
		items = append(items, it)
		b = b[k+int(n):]
	}
	return items, nil
}

// cleanDir is dir without a trailing slash (the walk joins with "/").
func cleanDir(dir string) string { return filepath.Clean(dir) }
