package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// appendLog is one KV log file: the magic, then frames, one frame a
// change, each copied into the file through a shared mapping of it (see
// maplog.go), or written with write(2) where the file system cannot
// reserve room ahead. Its owner (a kvStore) serializes appends and
// rewrites; commit may be called by many goroutines at once.
type appendLog struct {
	path string
	sync bool

	f    *os.File
	size atomic.Int64 // where the next frame goes; written under the owner's lock
	buf  []byte       // the owner's encoding buffer

	// The mapping, under the owner's lock: m maps the file from offset 0
	// (nil: appends are write(2)s); room is the file's length, reserved
	// with fallocate(2), of which [size, room) is zeros; failed is set
	// when a copy into m faulted, and every later append fails with it.
	m      []byte
	room   int64
	failed error
	mmap   func(fd, length int) ([]byte, error) // mapShared; tests fail it

	syncMu sync.Mutex
	synced int64 // bytes known stable, under syncMu
}

// openLog opens the log at path (creating it if create) and passes every record in it
// to apply, in order. A torn tail (a last frame cut short or failing its
// checksum, or a bad frame followed only by zeros: what a crash leaves) is
// cut off; a bad frame with valid data after it is corruption, and openLog
// refuses it naming the file and offset. It returns how many bytes it cut.
func openLog(path string, sync, create bool, apply func(...record)) (*appendLog, int64, error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("open KV log: %w", err)
	}
	l := &appendLog{path: path, sync: sync, f: f, mmap: mapShared}
	cut, err := l.recover(apply)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	l.synced = l.size.Load()
	l.mapFile()
	return l, cut, nil
}

// recover reads the whole file, replays it and cuts a torn tail and the
// room reserved after it. It returns how many bytes of the tail were not
// zeros.
func (l *appendLog) recover(apply func(...record)) (int64, error) {
	b, err := os.ReadFile(l.path)
	if err != nil {
		return 0, fmt.Errorf("read KV log: %w", err)
	}
	good, err := scanLog(b, apply)
	if err != nil {
		return 0, fmt.Errorf("KV log %s: %w", l.path, err)
	}
	if good < int64(len(logMagic)) || string(b[:len(logMagicV1)]) == logMagicV1 {
		// New, or its creation was cut short; or a log of the first
		// format, which this one reads: from now on it holds batches.
		if _, err := l.f.WriteAt([]byte(logMagic), 0); err != nil {
			return 0, fmt.Errorf("write KV log %s header: %w", l.path, err)
		}
		good = max(good, int64(len(logMagic)))
	}
	if good < int64(len(b)) {
		if err := l.f.Truncate(good); err != nil {
			return 0, fmt.Errorf("cut torn tail of KV log %s at %d: %w", l.path, good, err)
		}
	}
	if good != int64(len(b)) {
		if err := unix.Fdatasync(int(l.f.Fd())); err != nil {
			return 0, fmt.Errorf("sync KV log %s: %w", l.path, err)
		}
	}
	l.size.Store(good)
	end := int64(len(b))
	for end > good && b[end-1] == 0 {
		end--
	}
	return max(end-good, 0), nil
}

// scanLog passes the records of each of b's frames to apply and returns
// the length of its valid prefix. It fails on a file that is not a log and
// on corruption before the tail. It reads both formats (logMagic and
// logMagicV1, which has no batches).
func scanLog(b []byte, apply func(...record)) (int64, error) {
	if len(b) < len(logMagic) {
		if string(b) != logMagic[:len(b)] && string(b) != logMagicV1[:len(b)] {
			return 0, fmt.Errorf("not a KV log: %d bytes that are not its header", len(b))
		}
		return 0, nil
	}
	if h := string(b[:len(logMagic)]); h != logMagic && h != logMagicV1 {
		return 0, fmt.Errorf("not a KV log: header %q, want %q", h, logMagic)
	}
	off := len(logMagic)
	for off < len(b) {
		recs, n, err := decodeFrame(b[off:])
		if err == nil {
			apply(recs...)
			off += n
			continue
		}
		if errors.Is(err, errShort) || tornFrame(b[off:]) {
			return int64(off), nil // the torn tail
		}
		return 0, fmt.Errorf("record at offset %d: %w (and %d bytes follow it: corruption, not a torn tail)", off, err, len(b)-off)
	}
	return int64(off), nil
}

// tornFrame reports whether the bad frame at the start of b is what a
// crash leaves of the log's last append: b is zeros from its start (room
// reserved, or an append whose header was not stored yet); or from where
// its length field says the frame ends, b ends or only zeros follow (an
// append cut short: a write(2) that stopped part way, or a copy into the
// mapping that stopped before it stored the checksum, see putMapped).
func tornFrame(b []byte) bool {
	if allZero(b) {
		return true
	}
	ext := frameExtent(b)
	return ext > 0 && ext <= len(b) && allZero(b[ext:])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// append puts recs at the end of the log as one frame and returns the end
// of the log after it. The caller holds its store's lock. A failed
// write(2) is cut off again so the log stays whole.
func (l *appendLog) append(recs ...record) (int64, error) {
	if l.failed != nil {
		return 0, l.failed
	}
	l.buf = appendFrame(l.buf[:0], recs...)
	at := l.size.Load()
	end := at + int64(len(l.buf))
	if l.m != nil && end > l.room {
		if err := l.reserve(end); err != nil {
			return 0, err
		}
	}
	if l.m != nil {
		if err := l.putMapped(at, l.buf); err != nil {
			l.failed = err
			return 0, err
		}
	} else if _, err := l.f.WriteAt(l.buf, at); err != nil {
		if terr := l.f.Truncate(at); terr != nil {
			return 0, fmt.Errorf("append to KV log %s: %w (and cutting the partial write: %v)", l.path, err, terr)
		}
		return 0, fmt.Errorf("append to KV log %s: %w", l.path, err)
	}
	l.size.Store(end)
	if cap(l.buf) > 1<<20 {
		l.buf = nil
	}
	return end, nil
}

// commit makes the log stable up to end when the log syncs; otherwise it
// returns at once (what append wrote survives the process, not the host).
// Callers that arrive while a sync runs wait for it and are covered by the
// next one: group commit.
func (l *appendLog) commit(end int64) error {
	if !l.sync {
		return nil
	}
	return l.flush(end)
}

// flush makes the log stable up to end whether it syncs or not (an array
// transfer with object.Sync), sharing a sync in progress as commit does.
func (l *appendLog) flush(end int64) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if l.synced >= end {
		return nil
	}
	upto := l.size.Load()
	if err := unix.Fdatasync(int(l.f.Fd())); err != nil {
		return fmt.Errorf("sync KV log %s: %w", l.path, err)
	}
	l.synced = upto
	return nil
}

// rewrite replaces the log with one holding the records live emits: it
// writes them to PATH.compact, syncs it, renames it over the log and syncs
// the directory, so a crash leaves either the old log or the new one. The
// caller holds its store's lock.
func (l *appendLog) rewrite(live func(emit func(record) error) error) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	tmp := l.path + ".compact"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("compact KV log %s: %w", l.path, err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("compact KV log %s: %w", l.path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	size := int64(len(logMagic))
	w.WriteString(logMagic)
	var frame []byte
	err = live(func(r record) error {
		frame = appendFrame(frame[:0], r)
		size += int64(len(frame))
		_, err := w.Write(frame)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = unix.Fdatasync(int(f.Fd()))
	}
	if err == nil {
		err = os.Rename(tmp, l.path)
	}
	if err != nil {
		return fail(err)
	}
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		f.Close()
		return fmt.Errorf("compact KV log %s: %w", l.path, err)
	}
	l.unmap()
	l.f.Close()
	l.f = f
	l.size.Store(size)
	l.synced = size
	l.failed = nil
	l.mapFile()
	return nil
}

// close gives back the room reserved past the log's end, syncs the file (a
// clean shutdown leaves a stable log, SyncKV or not) and closes it.
func (l *appendLog) close() error {
	l.unmap()
	var err error
	if l.room > l.size.Load() { // room reserved for the mapping
		if err = l.f.Truncate(l.size.Load()); err != nil {
			err = fmt.Errorf("truncate KV log %s to its end: %w", l.path, err)
		}
	}
	l.syncMu.Lock()
	if serr := unix.Fdatasync(int(l.f.Fd())); err == nil && serr != nil {
		err = fmt.Errorf("sync KV log %s: %w", l.path, serr)
	}
	l.syncMu.Unlock()
	if err != nil {
		l.f.Close()
		return err
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close KV log %s: %w", l.path, err)
	}
	return nil
}

// syncDir fsyncs a directory, so the names created or renamed in it last.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
