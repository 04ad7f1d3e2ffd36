package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/internal/rawio"
	"github.com/hpcbench/hpcbench/objstore/object"
)

// DirectAlign is what object.Direct transfers must be aligned to: the
// offset, the length and the buffer's address are multiples of it (the
// strictest logical block size O_DIRECT asks of the file systems targets
// live on). A misaligned Direct transfer fails with object.ErrInvalid.
const DirectAlign = 4096

// pwrite and pread are the system calls of a transfer with flags f: a
// buffered one copies to or from the page cache and calls them raw
// (internal/rawio: no hand-off of the engine's P for a call of a few
// µs; BenchmarkArray 4 KiB: 1.17 -> 1.03 µs a write, 0.97 -> 0.87 a
// read); a Direct one waits on the device, so it goes through the
// scheduler and the other sessions' goroutines run meanwhile.
func pwrite(f object.IOFlags, fd int, b []byte, off int64) (int, error) {
	if f&object.Direct != 0 {
		return unix.Pwrite(fd, b, off)
	}
	return rawio.Pwrite(fd, b, off)
}

func pread(f object.IOFlags, fd int, b []byte, off int64) (int, error) {
	if f&object.Direct != 0 {
		return unix.Pread(fd, b, off)
	}
	return rawio.Pread(fd, b, off)
}

// extentPath is the file holding the chunks on target t of oid, cut in
// chunks of cs bytes.
func (c *Container) extentPath(t int, oid object.OID, cs int64) string {
	return extentFile(c.st.dirs[t], oid, cs)
}

// extentFile is the file holding oid's chunks (of cs bytes) in the
// container's directory dir of a target: HI.LO.CS, the chunk size in hex
// too, since the file's layout depends on it (see local).
func extentFile(dir string, oid object.OID, cs int64) string {
	return filepath.Join(dir, extentName(oid, cs))
}

func extentName(oid object.OID, cs int64) string {
	return oid.String() + "." + strconv.FormatInt(cs, 16)
}

// parseExtentName parses what extentName writes.
func parseExtentName(name string) (object.OID, int64, error) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return object.OID{}, 0, fmt.Errorf("extent file %q: %w (want HI.LO.CS)", name, object.ErrInvalid)
	}
	oid, err := object.ParseOID(name[:i])
	if err != nil {
		return object.OID{}, 0, err
	}
	cs, err := strconv.ParseInt(name[i+1:], 16, 64)
	if err != nil || cs <= 0 {
		return object.OID{}, 0, fmt.Errorf("extent file %q: chunk size %q: %w", name, name[i+1:], object.ErrInvalid)
	}
	return oid, cs, nil
}

// A stripe is how an array's chunks lie over the targets: chunk k is on
// target Placement(oid, k, n), the (k mod width)-th of the width targets
// from base, and it is that target's (k div width)-th chunk, so each
// target's extent file is dense: its chunks one after the other, with no
// holes between them that the other targets fill.
type stripe struct {
	n, width, base int
	cs             int64
}

func newStripe(oid object.OID, cs int64, ntargets int) stripe {
	return stripe{n: ntargets, width: oid.Class().Width(ntargets), base: object.Placement(oid, 0, ntargets), cs: cs}
}

// slot is target t's place among the stripe's targets (width or more when
// t holds none of its chunks).
func (s stripe) slot(t int) int { return (t - s.base + s.n) % s.n }

// local is where logical offset off lies in its target's file.
func (s stripe) local(off int64) int64 {
	k := off / s.cs
	return k/int64(s.width)*s.cs + off%s.cs
}

// localSize is how long target t's file is when the array is size bytes
// long and holds data to its end.
func (s stripe) localSize(t int, size int64) int64 {
	sl, w := int64(s.slot(t)), int64(s.width)
	if sl >= w {
		return 0
	}
	k, r := size/s.cs, size%s.cs
	if r > 0 && k%w == sl {
		return k/w*s.cs + r
	}
	chunks := k / w
	if k%w > sl {
		chunks++
	}
	return chunks * s.cs
}

// logicalEnd is the array's logical end that a file of L bytes on target
// t reaches: the byte after its last one.
func (s stripe) logicalEnd(t int, L int64) int64 {
	if L <= 0 || s.slot(t) >= s.width {
		return 0
	}
	i := (L - 1) / s.cs
	k := i*int64(s.width) + int64(s.slot(t))
	return k*s.cs + (L-1)%s.cs + 1
}

// A piece is the part of a transfer on one target: p[lo:hi], at logical
// offset off, at local in the target's file.
type piece struct {
	target int
	off    int64
	local  int64
	lo, hi int
}

// pieces cuts the n bytes at off of array a into runs each on one target
// (consecutive chunks on one target, as with S1, make one run).
// It appends them to out, which a caller passes from an array on its
// stack so that a transfer on a few targets allocates nothing.
func pieces(out []piece, a object.Array, off int64, n, ntargets int) []piece {
	s := newStripe(a.OID, a.ChunkSize, ntargets)
	for pos := 0; pos < n; {
		at := off + int64(pos)
		k := at / a.ChunkSize
		end := int(min(int64(n), (k+1)*a.ChunkSize-off))
		t := object.Placement(a.OID, k, ntargets)
		loc := s.local(at)
		if last := len(out) - 1; last >= 0 && out[last].target == t && out[last].hi == pos && out[last].local+int64(pos-out[last].lo) == loc {
			out[last].hi = end
		} else {
			out = append(out, piece{target: t, off: at, local: loc, lo: pos, hi: end})
		}
		pos = end
	}
	return out
}

// arrayTargets are the targets a's chunks may be on.
func (c *Container) arrayTargets(oid object.OID) []int {
	n := len(c.st.dirs)
	w := oid.Class().Width(n)
	seen := make([]bool, n)
	var out []int
	for k := range w {
		if t := object.Placement(oid, int64(k), n); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// checkTransfer says what is wrong with a transfer's arguments.
func checkTransfer(a object.Array, off int64, p []byte, f object.IOFlags) error {
	if a.ChunkSize <= 0 {
		return fmt.Errorf("chunk size %d: %w", a.ChunkSize, object.ErrInvalid)
	}
	if off < 0 {
		return fmt.Errorf("offset %d: %w", off, object.ErrInvalid)
	}
	if f&object.Direct != 0 && len(p) > 0 {
		if off%DirectAlign != 0 || len(p)%DirectAlign != 0 {
			return fmt.Errorf("direct transfer of %d bytes at %d: %w (offset and length must be multiples of %d)", len(p), off, object.ErrInvalid, DirectAlign)
		}
	}
	return nil
}

// isAligned reports whether p may be handed to an O_DIRECT transfer as it
// is: its address is a multiple of DirectAlign. A buffer that is not (the
// RPC layer's inline data sits where the message put it) moves through
// a bounce buffer that is.
func isAligned(p []byte) bool {
	return len(p) == 0 || uintptr(unsafe.Pointer(&p[0]))%DirectAlign == 0
}

// bounce returns an aligned buffer of n bytes.
func bounce(n int) []byte {
	b := make([]byte, n+DirectAlign)
	skip := (DirectAlign - int(uintptr(unsafe.Pointer(&b[0]))%DirectAlign)) % DirectAlign
	return b[skip : skip+n : skip+n]
}

func (c *Container) key(oid object.OID, cs int64, t int, f object.IOFlags) fdKey {
	return fdKey{cont: c.st.meta.UUID, oid: oid, cs: cs, target: t, direct: f&object.Direct != 0}
}

// WriteArray writes p at off: into the log when the array is held there
// (hold.go), else each piece with pwrite(2) at its place in its target's
// extent file (stripe.local), which the first write creates.
func (c *Container) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	err := c.check(ctx)
	if err == nil {
		err = checkTransfer(a, off, p, f)
	}
	if err == nil && len(p) > 0 {
		err = c.write(a, off, p, f)
	}
	if err != nil {
		return fmt.Errorf("write %d bytes at %d of %v: %w", len(p), off, a.OID, err)
	}
	return nil
}

// write puts p at off where the array lives, holding a new small array in
// the log and moving a held one out when p does not fit there.
func (c *Container) write(a object.Array, off int64, p []byte, f object.IOFlags) error {
	l := c.st.locks.of(a.OID)
	l.RLock()
	_, held := c.st.kv.heldSize(a.OID)
	ext, has := c.st.sizes.lookup(a.OID)
	if !held && (has || !holdable(off, len(p), f)) {
		defer l.RUnlock()
		if has && ext.cs != a.ChunkSize {
			return chunkErr(a, ext.cs)
		}
		return c.putExtents(a, off, p, f)
	}
	l.RUnlock()
	l.Lock()
	defer l.Unlock()
	old, held := c.st.kv.held(a.OID)
	if _, has := c.st.sizes.lookup(a.OID); (held || !has) && holdable(off, len(p), f) {
		ok, err := c.st.kv.hold(a.OID, func(old []byte) []byte { return writeBytes(old, off, p) }, f&object.Sync != 0)
		if ok || err != nil {
			return err
		}
	}
	if held {
		if err := c.move(a, old); err != nil {
			return err
		}
	}
	return c.writeExtents(a, off, p, f)
}

// move writes a held array's bytes to its extent files, then records that
// the log holds it no more. The caller holds the array's stripe for
// writing.
func (c *Container) move(a object.Array, b []byte) error {
	if err := c.writeExtents(a, 0, b, 0); err != nil {
		return fmt.Errorf("move %d bytes from the log to extent files: %w", len(b), err)
	}
	return c.st.kv.unhold(a.OID)
}

// writeExtents writes p at off to the array's extent files, once it has
// checked that they are in a's chunk size.
func (c *Container) writeExtents(a object.Array, off int64, p []byte, f object.IOFlags) error {
	if err := c.checkChunks(a); err != nil {
		return err
	}
	return c.putExtents(a, off, p, f)
}

// putExtents is writeExtents past the check.
func (c *Container) putExtents(a object.Array, off int64, p []byte, f object.IOFlags) error {
	if f&object.Direct != 0 && !isAligned(p) {
		p = append(bounce(len(p))[:0], p...)
	}
	var stack [4]piece
	for _, pc := range pieces(stack[:0], a, off, len(p), len(c.st.dirs)) {
		if err := c.writePiece(a, pc, p, f); err != nil {
			return err
		}
	}
	return nil
}

func (c *Container) writePiece(a object.Array, pc piece, p []byte, f object.IOFlags) error {
	e, err := c.p.fds.get(c.key(a.OID, a.ChunkSize, pc.target, f), c.st.dirs[pc.target], true)
	if err != nil {
		return err
	}
	defer c.p.fds.release(e)
	for b, at := p[pc.lo:pc.hi], pc.local; len(b) > 0; {
		n, err := pwrite(f, e.fd, b, at)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("pwrite %s: %w", c.extentPath(pc.target, a.OID, a.ChunkSize), err)
		}
		b, at = b[n:], at+int64(n)
		c.st.sizes.wrote(a.OID, a.ChunkSize, pc.off+(at-pc.local))
	}
	if f&object.Sync != 0 {
		if err := unix.Fdatasync(e.fd); err != nil {
			return fmt.Errorf("fdatasync %s: %w", c.extentPath(pc.target, a.OID, a.ChunkSize), err)
		}
	}
	return nil
}

// checkChunks refuses a transfer in chunks of another size than the
// array's extent files were written in: its bytes lie where that size
// put them (the namespace passes each file's own chunk size every time).
func (c *Container) checkChunks(a object.Array) error {
	if e, ok := c.st.sizes.lookup(a.OID); ok && e.cs != a.ChunkSize {
		return chunkErr(a, e.cs)
	}
	return nil
}

func chunkErr(a object.Array, cs int64) error {
	return fmt.Errorf("chunk size %d: %w (the array's extents were written in chunks of %d bytes)", a.ChunkSize, object.ErrInvalid, cs)
}

// ReadArray reads len(p) bytes at off; holes and missing extent files read
// as zeros.
func (c *Container) ReadArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	dst := p
	if f&object.Direct != 0 && !isAligned(p) {
		p = bounce(len(p))
	}
	n, err := c.readArray(ctx, a, off, p, f)
	if len(dst) > 0 && &dst[0] != &p[0] {
		copy(dst, p[:n])
	}
	if err != nil && err != io.EOF {
		return 0, fmt.Errorf("read %d bytes at %d of %v: %w", len(p), off, a.OID, err)
	}
	return n, err
}

func (c *Container) readArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	if err := c.check(ctx); err != nil {
		return 0, err
	}
	if err := checkTransfer(a, off, p, f); err != nil {
		return 0, err
	}
	if n, size, ok := c.st.kv.readHeld(a.OID, off, p); ok {
		if off >= size {
			return 0, io.EOF
		}
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
	ext, _ := c.st.sizes.lookup(a.OID) // size 0 without extent files
	if ext.cs != 0 && ext.cs != a.ChunkSize {
		return 0, chunkErr(a, ext.cs)
	}
	size := ext.size
	if off >= size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), size-off))
	span := n
	if f&object.Direct != 0 { // whole blocks; len(p) is aligned
		span = min(len(p), (n+DirectAlign-1)/DirectAlign*DirectAlign)
	}
	var stack [4]piece
	for _, pc := range pieces(stack[:0], a, off, span, len(c.st.dirs)) {
		if err := c.readPiece(a, pc, p, f); err != nil {
			return 0, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (c *Container) readPiece(a object.Array, pc piece, p []byte, f object.IOFlags) error {
	b := p[pc.lo:pc.hi]
	e, err := c.p.fds.get(c.key(a.OID, a.ChunkSize, pc.target, f), c.st.dirs[pc.target], false)
	if err != nil {
		return err
	}
	if e != nil {
		defer c.p.fds.release(e)
		for at := pc.local; len(b) > 0; {
			n, err := pread(f, e.fd, b, at)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return fmt.Errorf("pread %s: %w", c.extentPath(pc.target, a.OID, a.ChunkSize), err)
			}
			if n == 0 {
				break
			}
			b, at = b[n:], at+int64(n)
		}
	}
	clear(b) // past the target file's end: a hole
	return nil
}

// size is the size of oid's array held in the log, or the largest extent
// end over its targets, from the container's size index (no system call).
func (c *Container) size(oid object.OID) int64 {
	if n, ok := c.st.kv.heldSize(oid); ok {
		return n
	}
	ext, _ := c.st.sizes.lookup(oid)
	return ext.size
}

// extentSize is the size of a's extent file on target t, 0 for a
// missing one.
func (c *Container) extentSize(a object.Array, t int) (int64, error) {
	e, err := c.p.fds.get(c.key(a.OID, a.ChunkSize, t, 0), c.st.dirs[t], false)
	if err != nil || e == nil {
		return 0, err
	}
	defer c.p.fds.release(e)
	var st unix.Stat_t
	if err := unix.Fstat(e.fd, &st); err != nil {
		return 0, fmt.Errorf("fstat %s: %w", c.extentPath(t, a.OID, a.ChunkSize), err)
	}
	return st.Size, nil
}

// ArraySize returns the array's size: held in the log, or the largest
// logical end its extent files reach.
func (c *Container) ArraySize(ctx context.Context, a object.Array) (int64, error) {
	if err := c.check(ctx); err != nil {
		return 0, fmt.Errorf("size of %v: %w", a.OID, err)
	}
	return c.size(a.OID), nil
}

// SetSize truncates every extent file longer than size to size (what lay
// beyond is gone), or, growing, extends the file of the chunk holding byte
// size-1 to size.
func (c *Container) SetSize(ctx context.Context, a object.Array, size int64) error {
	err := c.check(ctx)
	if err == nil && (a.ChunkSize <= 0 || size < 0) {
		err = fmt.Errorf("chunk size %d, size %d: %w", a.ChunkSize, size, object.ErrInvalid)
	}
	if err == nil {
		err = c.resize(a, size)
	}
	if err != nil {
		return fmt.Errorf("set size of %v to %d: %w", a.OID, size, err)
	}
	return nil
}

// resize sets the size of the array where it lives: in the log while it
// is held there (or has no extent file yet) and size fits, else in its
// extent files, moving a held array out first.
func (c *Container) resize(a object.Array, size int64) error {
	l := c.st.locks.of(a.OID)
	l.Lock()
	defer l.Unlock()
	old, held := c.st.kv.held(a.OID)
	_, has := c.st.sizes.lookup(a.OID)
	if !held && !has && size == 0 {
		return nil // a new array, empty as it was
	}
	if (held || !has) && holdable(0, int(size), 0) {
		ok, err := c.st.kv.hold(a.OID, func(old []byte) []byte { return resizeBytes(old, size) }, false)
		if ok || err != nil {
			return err
		}
	}
	if held {
		if err := c.move(a, old); err != nil {
			return err
		}
	}
	if err := c.checkChunks(a); err != nil {
		return err
	}
	if err := c.setSize(a, size); err != nil {
		return err
	}
	c.st.sizes.set(a.OID, a.ChunkSize, size)
	return nil
}

func (c *Container) setSize(a object.Array, size int64) error {
	st := newStripe(a.OID, a.ChunkSize, len(c.st.dirs))
	old := int64(0)
	for _, t := range c.arrayTargets(a.OID) {
		path := c.extentPath(t, a.OID, a.ChunkSize)
		s, err := c.extentSize(a, t)
		if err != nil {
			return err
		}
		old = max(old, st.logicalEnd(t, s))
		if want := st.localSize(t, size); s > want {
			if err := unix.Truncate(path, want); err != nil {
				return fmt.Errorf("truncate %s: %w", path, err)
			}
		}
	}
	if size <= old || size == 0 {
		return nil
	}
	t := object.Placement(a.OID, (size-1)/a.ChunkSize, len(c.st.dirs))
	e, err := c.p.fds.get(c.key(a.OID, a.ChunkSize, t, 0), c.st.dirs[t], true)
	if err != nil {
		return err
	}
	defer c.p.fds.release(e)
	if err := unix.Ftruncate(e.fd, st.localSize(t, size)); err != nil {
		return fmt.Errorf("extend %s: %w", c.extentPath(t, a.OID, a.ChunkSize), err)
	}
	return nil
}

// SyncArray fdatasyncs the array's extent files and their directories, or
// the log when it holds the array.
func (c *Container) SyncArray(ctx context.Context, a object.Array) error {
	err := c.check(ctx)
	_, held := c.st.kv.heldSize(a.OID)
	held = held && err == nil
	if held {
		err = c.st.kv.sync()
	}
	for _, t := range c.arrayTargets(a.OID) {
		if held || err != nil {
			break
		}
		err = c.syncExtent(a, t)
	}
	if err != nil {
		return fmt.Errorf("sync %v: %w", a.OID, err)
	}
	return nil
}

func (c *Container) syncExtent(a object.Array, t int) error {
	e, err := c.p.fds.get(c.key(a.OID, a.ChunkSize, t, 0), c.st.dirs[t], false)
	if err != nil || e == nil {
		return err
	}
	defer c.p.fds.release(e)
	if err := unix.Fdatasync(e.fd); err != nil {
		return fmt.Errorf("fdatasync %s: %w", c.extentPath(t, a.OID, a.ChunkSize), err)
	}
	return syncDir(c.st.dirs[t])
}

// unlinkExtents closes and removes oid's extent files on every target.
func (c *Container) unlinkExtents(oid object.OID) error {
	// Unlink first, then drop the cached descriptors: a lookup racing the
	// punch then finds no file rather than caching the unlinked one.
	ext, ok := c.st.sizes.lookup(oid)
	if !ok {
		return nil // never written: no extent file on any target (mdtest's empty files)
	}
	cs := ext.cs
	defer c.p.fds.evictObject(c.st.meta.UUID, oid, cs, len(c.st.dirs))
	defer c.st.sizes.drop(oid)
	for t := range c.st.dirs {
		path := c.extentPath(t, oid, cs)
		if err := unix.Unlink(path); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("unlink %s: %w", path, err)
		}
	}
	return nil
}
