package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// Appends through a mapping. A KV log append used to be a write(2) of its
// frame: about 1.2 µs of the 1.7 µs a Put took in the engine
// (BenchmarkKV), most of it ext4's buffered write path, and all of it under
// the store's lock. Now the log's file is mapped shared and an append is a
// copy into the page cache, which outlives the engine's process as a
// write(2) does (and, with SyncKV, fdatasync(2) writes it back as it
// would). The room ahead is reserved with fallocate(2), growing by a
// quarter of the log (1 to 64 MiB), so a full disk fails an append with
// ENOSPC rather than a store into the mapping with SIGBUS; Close cuts the
// file back to the log's end. Where the file system cannot reserve room
// (EOPNOTSUPP) or the process cannot map the file (or map more of it: an
// address-space limit, ulimit -v), appends are write(2)s from then on.
//
// A kill must leave a frame whole or recognisably torn, whatever order the
// copy's stores land in, so putMapped stores a frame in three steps: its
// header with the checksum inverted (one 8-byte store), its payload, then
// the true checksum. Until the last step the frame fails its checksum,
// its length says where it ends, and only zeros (reserved room) follow:
// recovery cuts it as a torn tail (tornFrame). A change of several records
// is one frame (opBatch), so it is applied whole or not at all.
const (
	mapSpan = 64 << 20 // address space mapped over a log at first (at least twice the log); doubled as it outgrows it
	growMin = 1 << 20  // the least room a reservation adds
	growMax = 64 << 20 // the most
)

// mapFile maps the log's file, which ends at the log's end, for appends;
// if it cannot, appends are write(2)s.
func (l *appendLog) mapFile() {
	l.room = l.size.Load()
	span := int64(mapSpan)
	for span < 2*l.room {
		span *= 2
	}
	m, err := l.mmap(int(l.f.Fd()), int(span))
	if err != nil {
		return
	}
	l.m = m
}

// mapShared maps length bytes of the file fd from its start, shared and
// writable: appendLog.mmap unless a test replaces it.
func mapShared(fd, length int) ([]byte, error) {
	return unix.Mmap(fd, 0, length, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

// unmap removes the mapping, if any. What was copied into it stays in the
// page cache.
func (l *appendLog) unmap() {
	if l.m != nil {
		_ = unix.Munmap(l.m)
		l.m = nil
	}
}

// reserve extends the file with fallocate(2) so that it holds end bytes,
// and the mapping so that it covers them. Where the file system cannot
// reserve, or the mapping cannot grow, it unmaps the file (appends are
// write(2)s from then on) and returns nil.
func (l *appendLog) reserve(end int64) error {
	step := min(max(l.room/4, growMin), growMax)
	room := (end + step - 1) / step * step
	if err := unix.Fallocate(int(l.f.Fd()), 0, l.room, room-l.room); err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
			l.unmap()
			return nil
		}
		return fmt.Errorf("append to KV log %s: reserve %d bytes: %w", l.path, room-l.room, err)
	}
	if room > int64(len(l.m)) {
		span := int64(len(l.m))
		for span < room {
			span *= 2
		}
		m, err := l.mmap(int(l.f.Fd()), int(span))
		l.unmap()
		if err != nil {
			l.room = room // Close cuts it back to the log's end
			return nil
		}
		l.m = m
	}
	l.room = room
	return nil
}

// putMapped copies frame into the mapping at off, in the order the
// package comment gives. A fault in the copy (an I/O error reading a page
// of the file) is returned as an error.
func (l *appendLog) putMapped(off int64, frame []byte) (err error) {
	dst := l.m[off : off+int64(len(frame))]
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("append to KV log %s at %d through its mapping: %v", l.path, off, r)
		}
	}()
	binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(frame)^0xffffffff00000000)
	copy(dst[frameHeader:], frame[frameHeader:])
	copy(dst[4:frameHeader], frame[4:frameHeader])
	return nil
}
