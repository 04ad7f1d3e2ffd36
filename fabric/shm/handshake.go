//go:build linux

package shm

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/internal/deadline"
)

// Set-up, over the listener's unix socket:
//
//	dialer → listener: hello{rank, pid, cookie address and value, arena, wake} + SCM_RIGHTS(memfd[, arena][, wake])
//	listener → dialer: hello{rank, pid, cookie, Access: listener can read dialer, arena,
//	                   Mapped: listener mapped the dialer's arena, wake} + SCM_RIGHTS([arena][, wake])
//	dialer → listener: hello{Access: dialer can read listener, Mapped: dialer mapped the listener's arena}
//
// A side with an arena (see arena.go) passes its descriptor and says where
// the arena lies in its address space; the other side maps it, and says
// whether it could: a side sends from its arena by rendezvous only to a
// peer that maps it. A peer that cannot (an address-space limit) is noted
// and served through the ring. A side with a wake-up eventfd (see wake.go)
// passes it too, so that the other can wake its waiters that sleep on it.
// Each side probes the other's cookie with process_vm_readv before it
// answers, and keeps its own cookie alive until the peer has answered.

// hello is every set-up message; fields a message does not need are zero.
type hello struct {
	Magic      uint64
	Version    uint32
	Rank       uint32
	Pid        uint32
	Access     uint32 // 1: the sender of this message may access the other's memory
	Mapped     uint32 // 1: the sender of this message mapped the other's arena
	CookieAddr uint64
	Cookie     uint64
	ArenaBase  uint64 // the sender's address of its arena; 0 without one
	ArenaSize  uint64 // bytes of the arena whose descriptor is attached
	NoMemory   uint32 // 1: the listener could not map the pair's memory: the system is out of memory
	Wake       uint32 // 1: the sender's wake-up eventfd is attached, after every other descriptor
}

// helloSize is the encoded size of a hello.
var helloSize = binary.Size(hello{})

// sealed are the seals the dialer puts on the memfd; the listener requires
// F_SEAL_SHRINK, without which the dialer could shrink the file under the
// listener's mapping and make it fault.
const sealed = unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL

// dial connects to the listener at addr and sets the pair up.
func (t *Transport) dial(ctx context.Context, self int, addr string, hint fabric.Hint) (*Conn, int, error) {
	ringSize := t.opts.ringFor(hint)
	if err := checkRank(self); err != nil {
		return nil, 0, fmt.Errorf("shm: dial %s: %w", addr, err)
	}
	host, name, err := parseAddr(addr)
	if err != nil {
		return nil, 0, fmt.Errorf("shm: dial: %w", err)
	}
	if host != t.hostID {
		return nil, 0, fmt.Errorf("shm: dial %s: not reachable: host id %s is not this host's %s", addr, host, t.hostID)
	}
	var d net.Dialer
	raw, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return nil, 0, fmt.Errorf("shm: dial %s: %w", addr, err)
	}
	sock := raw.(*net.UnixConn)
	var mem []byte
	var peerMem *peerArena
	var bound *deadline.Binding
	peerWake := -1
	fail := func(err error) (*Conn, int, error) {
		err = handshakeErr(bound, err)
		_ = sock.Close()
		if mem != nil {
			_ = unix.Munmap(mem)
		}
		_ = peerMem.unmap()
		closeAll([]int{peerWake})
		return nil, 0, fmt.Errorf("shm: dial %s: %w", addr, err)
	}
	bound, err = deadline.Bind(ctx, sock, t.opts.HandshakeTimeout)
	if err != nil {
		return fail(err)
	}
	pid, err := peerPid(sock)
	if err != nil {
		return fail(err)
	}
	mem, fd, err := createShared(mapSize(ringSize), !crowded(hint))
	if err != nil {
		return fail(err)
	}
	initHeader(mem, ringSize, t.opts.CMAChunk, crowded(hint))
	cookie, err := newCookie()
	if err != nil {
		_ = unix.Close(fd)
		return fail(err)
	}
	h, fds := t.withArena(hello{Rank: uint32(self), CookieAddr: addrOfCookie(cookie), Cookie: *cookie}, fd)
	h, fds = t.withWake(h, fds)
	err = writeHello(sock, h, fds...)
	_ = unix.Close(fd) // the mappings keep the memory; nothing has a name
	if err != nil {
		return fail(fmt.Errorf("sending hello: %w", err))
	}
	reply, got, err := readHello(sock, 2)
	runtime.KeepAlive(cookie)
	if err != nil {
		return fail(fmt.Errorf("reading reply: %w", err))
	}
	if peerWake, got, err = takeWake(reply, got); err != nil {
		closeAll(got)
		return fail(err)
	}
	if reply.NoMemory != 0 {
		closeAll(got)
		return fail(fmt.Errorf("%w on rank %d: it could not map the pair's %s of shared memory", errNoMemory, reply.Rank, kib(mapSize(ringSize))))
	}
	peerMem = t.mapArenaFrom(reply, got)
	canAccess := t.probe(pid, reply.CookieAddr, reply.Cookie)
	if err := writeHello(sock, hello{Access: boolWord(canAccess), Mapped: boolWord(peerMem != nil)}); err != nil {
		return fail(fmt.Errorf("sending final: %w", err))
	}
	err = bound.Release()
	bound = nil
	if err != nil {
		return fail(err)
	}
	c, err := newConn(connParams{mem: mem, side: sideDialer, peerPid: pid, canAccess: canAccess,
		peerCanAccess: reply.Access == 1, sock: sock, opts: t.opts, arena: t.arena, peerArena: peerMem,
		peerMapsArena: reply.Mapped == 1, wake: t.wake, peerWake: peerWake})
	if err != nil {
		return fail(err)
	}
	return c, int(reply.Rank), nil
}

// accept sets up the pair on a socket a dialer has just connected.
func (t *Transport) accept(ctx context.Context, self int, sock *net.UnixConn) (*Conn, int, error) {
	var mem []byte
	var peerMem *peerArena
	var bound *deadline.Binding
	peerWake := -1
	fail := func(err error) (*Conn, int, error) {
		err = handshakeErr(bound, err)
		_ = sock.Close()
		if mem != nil {
			_ = unix.Munmap(mem)
		}
		_ = peerMem.unmap()
		closeAll([]int{peerWake})
		return nil, 0, fmt.Errorf("shm: accept: %w", err)
	}
	bound, err := deadline.Bind(ctx, sock, t.opts.HandshakeTimeout)
	if err != nil {
		return fail(err)
	}
	pid, err := peerPid(sock)
	if err != nil {
		return fail(err)
	}
	in, fds, err := readHello(sock, 3)
	if err != nil {
		return fail(fmt.Errorf("reading hello: %w", err))
	}
	if peerWake, fds, err = takeWake(in, fds); err != nil {
		closeAll(fds)
		return fail(err)
	}
	if len(fds) == 0 {
		return fail(errors.New("hello carried no shared-memory descriptor"))
	}
	mem, err = mapShared(fds[0])
	_ = unix.Close(fds[0])
	if err != nil {
		closeAll(fds[1:])
		if errors.Is(err, errNoMemory) {
			// Tell the dialer why, or it sees only the socket close.
			_ = writeHello(sock, hello{Rank: uint32(self), NoMemory: 1})
		}
		return fail(fmt.Errorf("rank %d: %w", in.Rank, err))
	}
	peerMem = t.mapArenaFrom(in, fds[1:])
	if _, err := newLayout(mem); err != nil {
		return fail(err)
	}
	canAccess := t.probe(pid, in.CookieAddr, in.Cookie)
	cookie, err := newCookie()
	if err != nil {
		return fail(err)
	}
	reply, fds := t.withArena(hello{Rank: uint32(self), Access: boolWord(canAccess), Mapped: boolWord(peerMem != nil),
		CookieAddr: addrOfCookie(cookie), Cookie: *cookie})
	reply, fds = t.withWake(reply, fds)
	if err := writeHello(sock, reply, fds...); err != nil {
		return fail(fmt.Errorf("sending reply: %w", err))
	}
	final, _, err := readHello(sock, 0)
	runtime.KeepAlive(cookie)
	if err != nil {
		return fail(fmt.Errorf("reading final: %w", err))
	}
	err = bound.Release()
	bound = nil
	if err != nil {
		return fail(err)
	}
	c, err := newConn(connParams{mem: mem, side: sideListener, peerPid: pid, canAccess: canAccess,
		peerCanAccess: final.Access == 1, sock: sock, opts: t.opts, arena: t.arena, peerArena: peerMem,
		peerMapsArena: final.Mapped == 1, wake: t.wake, peerWake: peerWake})
	if err != nil {
		return fail(err)
	}
	return c, int(in.Rank), nil
}

// probe reports whether this process may access the memory of pid, where
// the peer says an 8-byte cookie holds value at addr, noting a refusal
// once.
func (t *Transport) probe(pid int, addr, value uint64) bool {
	if pid <= 0 {
		if t.opts.CMAThreshold > 0 {
			t.note("cma-pid", "shm: a peer's pid is not visible in this pid namespace: no cross-memory attach; large messages are pipelined through the ring")
		}
		return false
	}
	probe := probeAccess
	if t.probeHook != nil {
		probe = t.probeHook
	}
	ok, err := probe(pid, addr, value)
	if err != nil && t.opts.CMAThreshold > 0 {
		t.note("cma", "shm: cross-memory attach to pid %d refused: %v; large messages are pipelined through the ring (two copies) instead", pid, err)
	}
	return ok
}

// peerPid returns the connected peer's pid as this pid namespace sees it
// (0 if it is not visible), and rejects peers of another uid.
func peerPid(sock *net.UnixConn) (int, error) {
	rc, err := sock.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if cerr != nil {
		return 0, fmt.Errorf("peer credentials: %w", cerr)
	}
	if uid := os.Getuid(); int(cred.Uid) != uid {
		return 0, fmt.Errorf("peer pid %d runs as uid %d, not this process's uid %d", cred.Pid, cred.Uid, uid)
	}
	return int(cred.Pid), nil
}

// createShared makes an anonymous, size-sealed memfd of size bytes and maps
// it, faulting in every page if all is set, else only the header (see
// mapPopulated).
func createShared(size int, all bool) (mem []byte, fd int, err error) {
	fd, err = unix.MemfdCreate("hpcbench-shm", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, -1, memErr("memfd_create", size, err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		_ = unix.Close(fd)
		return nil, -1, memErr("sizing it", size, err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, sealed); err != nil {
		_ = unix.Close(fd)
		return nil, -1, fmt.Errorf("sealing shared memory: %w", err)
	}
	if mem, err = mapPopulated(fd, size, func([]byte) bool { return all }); err != nil {
		_ = unix.Close(fd)
		return nil, -1, err
	}
	return mem, fd, nil
}

// mapShared maps the memfd a dialer sent, after checking its size and
// seals.
func mapShared(fd int) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shared memory: fstat: %w", err)
	}
	if st.Size < headerSize || st.Size > int64(mapSize(maxRingSize)) {
		return nil, fmt.Errorf("shared memory of %d bytes: outside %d..%d", st.Size, headerSize, mapSize(maxRingSize))
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		return nil, fmt.Errorf("shared memory: reading seals: %w", err)
	}
	if seals&unix.F_SEAL_SHRINK == 0 {
		return nil, errors.New("shared memory is not sealed against shrinking")
	}
	// The pages of a crowded pair's rings fault in as they are used.
	return mapPopulated(fd, int(st.Size), func(mem []byte) bool { return (*header)(unsafe.Pointer(&mem[0])).crowded == 0 })
}

// mapPopulated maps size bytes of the memfd fd and faults the header page
// in for writing and, if all(mem) says so, every other page, so that the
// first messages do not take page faults. A crowded host's pairs (see
// crowdedFactor) leave their rings to fault in as they are used: at 1024
// ranks, fully populated 64 KiB rings took 1.3 GiB for a Barrier that
// touches a few cache lines of each. It populates with
// madvise(MADV_POPULATE_WRITE) rather than MAP_POPULATE, which ignores
// failures and leaves the first touch of a page the system has no memory
// for to raise SIGBUS: madvise says so, and the pair is not made.
func mapPopulated(fd, size int, all func(mem []byte) bool) ([]byte, error) {
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, memErr("mmap", size, err)
	}
	populate := func(b []byte) error {
		switch err := unix.Madvise(b, unix.MADV_POPULATE_WRITE); {
		case err == nil, errors.Is(err, unix.EINVAL): // EINVAL: before Linux 5.14; pages fault in on first use
			return nil
		default:
			_ = unix.Munmap(mem)
			return memErr("populating it", size, err)
		}
	}
	if err := populate(mem[:min(headerSize, size)]); err != nil {
		return nil, err
	}
	if size > headerSize && all(mem) {
		if err := populate(mem[headerSize:]); err != nil {
			return nil, err
		}
	}
	return mem, nil
}

// errNoMemory is in the errors of a pair that could not get its shared
// memory because the system has none to give.
var errNoMemory = errors.New("out of memory")

// memErr words a failure to get shared memory: when the system is out of
// memory (ENOMEM; ENOSPC from a full shared-memory file system; EFAULT
// from populating pages that cannot be had), it says so first.
func memErr(what string, size int, err error) error {
	if errors.Is(err, unix.ENOMEM) || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EFAULT) {
		return fmt.Errorf("%w for %s of shared memory: %s: %w", errNoMemory, kib(size), what, err)
	}
	return fmt.Errorf("%s of shared memory: %s: %w", kib(size), what, err)
}

// kib prints a byte count in KiB.
func kib(n int) string { return fmt.Sprintf("%d KiB", n>>10) }

// writeHello sends h, with fds attached.
func writeHello(sock *net.UnixConn, h hello, fds ...int) error {
	h.Magic, h.Version, h.Pid = magic, version, uint32(os.Getpid())
	b, err := binary.Append(nil, binary.LittleEndian, &h)
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	n, oobn, err := sock.WriteMsgUnix(b, oob, nil)
	if err == nil && (n != len(b) || oobn != len(oob)) {
		err = io.ErrShortWrite
	}
	return err
}

// readHello reads one hello and returns the first want descriptors
// attached to it, closing any others (and all of them on error).
func readHello(sock *net.UnixConn, want int) (hello, []int, error) {
	b := make([]byte, helloSize)
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := sock.ReadMsgUnix(b, oob)
	var fds []int
	if oobn > 0 {
		fds = keepFirst(oob[:oobn], want)
	}
	fail := func(err error) (hello, []int, error) {
		closeAll(fds)
		return hello{}, nil, err
	}
	if err != nil {
		return fail(err)
	}
	if n < len(b) {
		if _, err := io.ReadFull(sock, b[n:]); err != nil {
			return fail(err)
		}
	}
	var h hello
	if _, err := binary.Decode(b, binary.LittleEndian, &h); err != nil {
		return fail(err)
	}
	if h.Magic != magic || h.Version != version {
		return fail(fmt.Errorf("peer speaks magic %#x version %d, want %#x version %d", h.Magic, h.Version, uint64(magic), version))
	}
	return h, fds, nil
}

// keepFirst returns the first want descriptors in the control messages and
// closes every other.
func keepFirst(oob []byte, want int) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var kept []int
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, f := range fds {
			if len(kept) < want {
				kept = append(kept, f)
				continue
			}
			_ = unix.Close(f)
		}
	}
	return kept
}

// closeAll closes descriptors; negative ones stand for none.
func closeAll(fds []int) {
	for _, f := range fds {
		if f >= 0 {
			_ = unix.Close(f)
		}
	}
}

// withWake adds this transport's wake-up eventfd, if it has one, to h and
// after the descriptors fds.
func (t *Transport) withWake(h hello, fds []int) (hello, []int) {
	if t.wake == nil {
		return h, fds
	}
	h.Wake = 1
	return h, append(fds, t.wake.fd)
}

// takeWake splits the peer's wake-up eventfd, which comes last, off the
// descriptors attached to h; it is -1 when the peer sent none. A
// descriptor that is not an eventfd fails the set-up (and is closed): the
// peer's waiters sleep on the eventfd it sent, and nothing else would wake
// them.
func takeWake(h hello, fds []int) (int, []int, error) {
	if h.Wake == 0 {
		return -1, fds, nil
	}
	if len(fds) == 0 {
		return -1, nil, errors.New("the peer announced a wake-up eventfd without its descriptor")
	}
	fd, rest := fds[len(fds)-1], fds[:len(fds)-1]
	if err := checkEventfd(fd); err != nil {
		_ = unix.Close(fd)
		return -1, rest, err
	}
	return fd, rest, nil
}

// withArena adds this transport's arena, if it has one, to h, and returns
// the descriptors to attach: fds followed by the arena's.
func (t *Transport) withArena(h hello, fds ...int) (hello, []int) {
	if t.arena == nil {
		return h, fds
	}
	h.ArenaBase, h.ArenaSize = t.arena.base, uint64(len(t.arena.mem))
	return h, append(fds, t.arena.fd)
}

// mapArenaFrom maps the arena a peer announced in h, whose descriptor is
// the first of fds (which it closes). A peer without an arena gives nil,
// and so does one whose arena cannot be mapped, which is noted: the pair
// then works without it.
func (t *Transport) mapArenaFrom(h hello, fds []int) *peerArena {
	defer closeAll(fds)
	if h.ArenaSize == 0 {
		return nil
	}
	var p *peerArena
	err := errors.New("the peer announced an arena without its descriptor")
	if len(fds) > 0 {
		mapArena := mapPeerArena
		if t.mapHook != nil {
			mapArena = t.mapHook
		}
		p, err = mapArena(fds[0], h.ArenaSize, h.ArenaBase)
	}
	if err != nil {
		t.note("arena-map", "shm: %v; messages from that peer's arena buffers go through the ring (two copies)", err)
		return nil
	}
	return p
}

// newCookie returns a heap word holding a random value for the peer to
// probe.
func newCookie() (*uint64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("random cookie: %w", err)
	}
	c := new(uint64)
	*c = binary.LittleEndian.Uint64(b[:]) | 1
	return c, nil
}

func addrOfCookie(c *uint64) uint64 { return uint64(uintptr(unsafe.Pointer(c))) }

func boolWord(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// handshakeErr releases bound, if the handshake still holds it, and words
// err by what ended it: ctx's error with err as detail when ctx ended, the
// handshake timeout when that passed (see deadline.Binding.Err).
func handshakeErr(bound *deadline.Binding, err error) error {
	if bound == nil {
		return err
	}
	_ = bound.Release()
	return bound.Err(err)
}
