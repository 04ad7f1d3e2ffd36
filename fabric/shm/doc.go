// Package shm is the shared-memory fabric transport for ranks on one host.
//
// # Addresses and set-up
//
// A Listener is an AF_UNIX stream socket in the abstract namespace, so it
// has no file to clean up, and its address is
//
//	shm://<hostid>/@hpcbench-shm-<pid>-<random>
//
// where hostid is the kernel's boot id (which differs between hosts and
// between boots of one host) and the inode of the network namespace
// (abstract sockets are per network namespace). Reachable is true only when
// both match this process's.
//
// The socket is only used to set a pair up and to notice the peer's death.
// The dialer creates the pair's shared memory with memfd_create, seals its
// size, and passes the descriptor with SCM_RIGHTS; both sides map it and
// close the descriptor. Nothing is ever linked in /dev/shm, so nothing is
// left behind when a rank crashes: the memory goes away with the last
// mapping. (Creating a named /dev/shm segment and unlinking it once both
// sides have mapped it leaves a window in which a crash leaks the segment;
// memfd has no such window.) The two sides also exchange ranks, learn each
// other's pid from SO_PEERCRED (which the kernel translates into this
// process's pid namespace) and probe, by reading a cookie from each other
// with process_vm_readv, whether cross-memory attach works in each
// direction. Only peers with this process's uid are accepted.
//
// After set-up a goroutine per Conn blocks reading the socket. The peer
// never writes to it again, so the read returns only when the peer closes
// the Conn or its process dies; either way the Conn is marked gone and its
// waiters are woken, so a Recv from a dead peer returns ErrClosed instead of
// hanging.
//
// # The shared mapping
//
// The dialer sizes the pair: DialHint, told how many ranks share the host,
// gives the rings RingBudget/(ranks-1) bytes each (a power of two from
// 64 KiB up to RingSize), so that a rank connected to all the others maps
// about RingBudget of rings: two to five ranks keep 1 MiB rings, 64 and
// more get 64 KiB ones. (At 16 and 64 ranks on the 2-vCPU VM, Allreduce
// and Alltoall up to 1 MiB ran as fast with 256 KiB and 64 KiB rings as
// with 1 MiB ones: from 64 KiB on, messages from arena buffers bypass the
// ring.) Both sides fault every page in for writing when they map it
// (madvise MADV_POPULATE_WRITE), so that the first messages take no page
// faults, and a system out of memory fails the set-up with an error that
// says so instead of a SIGBUS on first touch. A host with more than four
// ranks per CPU (the hint also carries the CPU count) is marked crowded in
// the header, and its waiters sleep in the kernel after a microsecond's
// spin instead of spinning and yielding (see Waiting).
//
// One page of control words followed by two rings, one per direction, each
// written by one side and read by the other (single producer, single
// consumer). A ring is a byte ring: the producer's head and the consumer's
// tail are free-running uint32 byte counts, each alone in its own 64-byte
// cache line, and the ring size is a power of two. Each side keeps a
// private copy of the other side's index and reloads it only when the copy
// says there is no room (producer) or no data (consumer), so in steady
// streaming each index line moves between the cores about once per batch.
//
// Records start on 64-byte boundaries and begin with a 16-byte header (kind,
// tag, length), so a header never wraps around the end of the ring. There
// are three kinds:
//
//   - eager: the header and the whole payload, published with one store of
//     head once the producer has copied it all in. Messages up to
//     Options.EagerLimit go this way. A Recv that has to wait first asks the CPU
//     (PREFETCHW, on amd64) for the ring lines its own side's next eager
//     record will take if it is as long as the last, so that the reply's
//     copy does not wait for them to leave the peer's core.
//   - pipe: the header and the payload, published Options.PipeChunk bytes at
//     a time, so that the receiver copies out while the sender copies in.
//     Larger messages go this way by default: with the ring resident in the
//     caches, two overlapped copies moved 1-4 MiB at 15-30 GB/s on the
//     machine this was measured on.
//   - rndv: a descriptor (tag, length, the sender's virtual address, a
//     sequence number) for cross-memory attach, used for messages of at
//     least Options.CMAThreshold bytes when that is set (it is off by
//     default). The receiver publishes where the data should go; then the
//     receiver with process_vm_readv and, if it is awake, the sender with
//     process_vm_writev take chunks of Options.CMAChunk bytes off a shared
//     counter and copy them straight from the sender's buffer into the
//     receiver's: one copy, done by both cores when both are free. Send
//     returns only once every chunk is done, so the caller's buffer is
//     never read after Send returns. It is off by default because
//     process_vm_readv between two processes ran at only 5-13 GB/s there
//     (the kernel pins the other process's pages one 4 KiB page at a time),
//     slower than the pipelined ring at every size, also with four
//     processes on two cores.
//
// # The arena: one copy from buffers the transport hands out
//
// A Transport also owns an arena (Options.ArenaSize, 16 GiB of address
// space by default, of which only touched pages use memory): one memfd,
// sealed against shrinking, whose descriptor each side passes to the other
// at set-up, so that every peer maps every other's arena. Transport.Alloc
// hands out page-aligned buffers from it (it implements fabric.Allocator;
// collectives.Comm and hpcbench coll take their buffers from it), Free
// punches their pages out of the file. A message of at least
// Options.ArenaThreshold bytes sent from an arena buffer goes by the
// rendezvous protocol above, but the copies are plain loads and stores:
// the receiver copies straight from the sender's buffer through its mapping
// of the sender's arena, and, when the destination is in the receiver's
// arena, the sender (if it is awake) copies the other chunks into it. This
// is the single copy of cross-memory attach at memcpy speed, without the
// kernel pinning pages: on the 2-vCPU VM measured, a 1 MiB one-way transfer
// between processes took 14-20 µs (both sides copying, 50-75 GB/s) against
// 35 µs through the ring. And because the receiver alone can finish the
// copy, a message no longer waits for a descheduled sender to copy it into
// the ring, which on a loaded machine made 1 MiB take 460 µs instead of 35.
// Buffers from the heap keep the ring (or cross-memory attach) path.
//
// # Memory model
//
// Control words are sync/atomic values placed in the mapping. Go's atomics
// are sequentially consistent, the compiler never moves ordinary memory
// accesses across them, and on amd64 (XCHG stores, TSO loads) and arm64
// (STLR/LDAR) the instructions that implement them order accesses to
// physical memory whichever process issues them. So the pattern "copy the
// payload with ordinary stores, then atomically store head" on one side and
// "atomically load head, then copy the payload out with ordinary loads" on
// the other is a release/acquire pair across processes exactly as it is
// across goroutines. The sleep protocol below relies on the stronger
// sequential consistency (a store followed by a load of a different word,
// Dekker style).
//
// # Waiting
//
// A waiter first spins for a microsecond, re-reading the word it waits on:
// a running peer answers a small message within that. Then it asks the
// kernel which CPU it runs on (getcpu), publishes that in the mapping, and
// compares it with the CPU the peer published in its own last wait. If the
// peer last ran on this CPU, it is probably the one being waited for and
// needs this CPU, so the waiter yields at once (four ranks on two cores);
// otherwise it spins on, up to Options.Spin (two ranks on two cores, even
// with unrelated load, where yielding would only hand the CPU to a
// stranger). Then it yields (sched_yield, and now and then
// runtime.Gosched) for Options.Yield, and finally sleeps on a per-waiter
// doorbell in the mapping.
//
// A sleeper announces itself by incrementing the doorbell's sleeper count
// before re-checking its condition and sleeping; whoever makes the
// condition true checks the sleeper count after its own store and, only if
// someone sleeps, rings the doorbell. So the fast path costs one extra load
// of a line that is rarely written. Cancellation of the context, Close, and
// the peer's death also ring the doorbell, so a sleeping call returns at
// once; every sleep also times out now and then as a safety net.
//
// A sleeper sleeps in one of two ways. Each Transport has a wake-up eventfd
// that it passes to every peer at set-up; one goroutine of the process at a
// time may take it, say so in the doorbell, and park in the Go runtime's
// poller until a peer writes the eventfd. The others sleep in futex(2) on
// the doorbell's sequence number. Ringing bumps the sequence, writes the
// eventfd if the doorbell says its sleeper is there, and calls FUTEX_WAKE.
// The eventfd is the common way because a goroutine blocked in a system
// call costs two more thread wake-ups in the runtime (its sysmon thread
// takes the P away, and gives it back when the call returns): on a crowded
// host, where nearly every message costs a sleep, a 256-process token ring
// on 2 CPUs took 90-120 µs a hop in futex(2) and 30-55 µs on the eventfd
// (15-40 µs in C).
//
// # Contract details
//
// Messages with tags other than the one a Recv asks for are copied into
// heap buffers and queued, in order. A rendezvous message is pulled while
// the receiver looks for another tag, so Sends never wait for a particular
// Recv, only for the receiver to be in some Recv. The buffers passed to Send
// and Recv escape to the heap (the peer addresses them by virtual address
// while the call runs, and Go moves goroutine stacks, never heap objects).
//
// A Send interrupted by its context or by Close before any byte of its
// message was published returns cleanly; so does a rendezvous Send whose
// receiver has not claimed it yet. A pipelined Send interrupted half way
// marks its direction aborted: its peer gets ErrClosed once it reaches the
// broken message, and later Sends fail; the stream is never corrupted. A
// Recv interrupted half way through a pipelined message keeps what it has
// read in a buffer of its own, and the next Recv finishes it.
package shm
