// Package rpc is the wire protocol of hpcbench's DAOS-like object store:
// what a client (objstore/client) and an engine (objstore/engine) say to
// each other over a fabric.Conn (shm on one host, tcp across hosts), as
// DAOS clients speak to daos_engine over Mercury and CaRT. It owns the
// hello, the messages and their encoding (Msg), the operation codes, the
// error kinds that carry object's errors across (EngineError), the lists'
// encodings and the waiting policy both sides follow (Recv); the client's
// calls and the engine's dispatch are the two packages that speak it.
//
// # Connection
//
// A connection carries four streams, by tag: hello (0x64667300), requests
// (…01, client to engine), replies (…02, engine to client) and data
// (…03, either way). The client first sends a hello of 16 bytes:
//
//	u32 magic 0x52534644 ("DFSR")  u16 version  u16 0  u64 client id
//
// and the engine answers
//
//	u32 magic  u16 its version  u16 status (0 accepted, 1 refused)  text
//
// A client of another version is refused, and both sides return an error
// wrapping ErrVersion that names both versions.
//
// # Messages
//
// A request and a reply have the same layout, every integer little-endian
// and fixed-width (byte offsets):
//
//	 0 u64 request id (the reply repeats it)
//	 8 u16 op code
//	10 u16 error kind (replies; 0 in requests)
//	12 u8  data mode: 0 inline, 1 in the next data message, 2 by RMA
//	13 u8  hints (replies; 0 in requests): bit 0, the engine's host is
//	       busy (see "Waiting" below)
//	14 u16 0
//	16 u64 data length
//	24 u64 container handle
//	32 u64 oid.Hi   40 u64 oid.Lo
//	48 i64 a        56 i64 b        64 i64 c
//	72 u16 class    74 u16 dir class   76 u8 I/O flags   77 3 bytes 0
//	80 s1, s2, key: each a u32 length and its bytes
//	   then the data itself when the mode is inline
//
// A message is at most 64 KiB and carries at most 32 KiB of data inline;
// more data follows as one message on the data stream (from the engine's
// side, out of its transport's arena: on fabric/shm the client copies it
// once, straight from the engine's buffer), or stays in the client's
// buffer, whose key the request carries (mode 2): for array transfers from
// and into a buffer the engine maps (fabric.PeerViewer: a
// client.Client.Alloc buffer on fabric/shm), which the engine then writes
// to its files from, or reads into, in place (fabric.RMAViewer); and for
// every array transfer of a client with client.ClientOptions.BulkRMA on an
// RMA connection, which the engine moves with fabric.RMAConn.Read
// (WriteArray) or Write (ReadArray) when it cannot view the buffer.
//
// What a, b, c, s1 and s2 hold depends on the op:
//
//	op                    request                          reply
//	1  Query                                               s1 uuid, data targets
//	2  CreateCont         s1 label, c chunk, classes
//	3  OpenCont           s1 label                         handle, c, classes
//	4  ListConts                                           data labels
//	5  QueryCont          s1 label                         s1 label, s2 uuid, c, classes, a objects, b bytes
//	6  DestroyCont        s1 label
//	7  close container    handle
//	8  AllocOIDs          handle, class, a n               oid
//	9  Put, 10 Insert     handle, oid, s1 dkey, s2 akey, data value
//	11 Get                handle, oid, s1 dkey, s2 akey    data value
//	12 Remove             handle, oid, s1 dkey
//	13 List               handle, oid, s1 anchor, a max    data dkeys, s1 next anchor
//	14 WriteArray         handle, oid, c chunk, a off, flags, data
//	15 ReadArray          handle, oid, c chunk, a off, b length, flags   a n, data
//	16 ArraySize          handle, oid, c chunk             a size
//	17 SetSize            handle, oid, c chunk, a size
//	18 SyncArray          handle, oid, c chunk
//	19 Punch              handle, oid
//	20 RemoveIf           handle, oid, s1 dkey, s2 akey, data expected value
//	21 Unlink             handle, oid, s1 dkey, a victim.Hi, b victim.Lo,   a 1 if removed
//	                      c 1 if conditional: s2 akey, data expected value
//
// Lists (labels, dkeys) are a u32 count and u32-length-prefixed strings;
// targets a u32 count and per target u32 index, u64 total and free
// bytes, u64 total and free inodes, the path and the file system id. A reply's error kind is 0 (none), 1 object.ErrNotExist,
// 2 object.ErrExist, 3 object.ErrInvalid, 4 io.EOF (a short ReadArray,
// with its data), 5 the engine stopping, 6 any other error, 7 object.ErrChanged
// (a RemoveIf or Unlink that found another value); s1 is then
// the engine's error text, and the client's error (an *EngineError) wraps
// the kind's sentinel, so errors.Is works on the client as in the engine.
//
// A malformed request gets a reply of kind 3 and the engine drops the
// connection. When a connection fails (the client closed it or died) the
// engine closes the container handles opened on it.
//
// # Bulk data: in place from arena buffers, else messages
//
// objstore/client's BenchmarkOps/proc-*: a client and an engine process
// over fabric/shm on a 2-vCPU VM, medians of 3 runs of 1 s; each figure
// includes memobj's own copy of 1 MiB, 14-18 µs:
//
//	1 MiB WriteArray  arena buffer, viewed in place (memobj's copy only)      15 µs  70 GB/s
//	                  the same as a message (the engine copies it first)     25 µs  41 GB/s
//	                  message, heap buffer (the ring's two overlapped copies)   53 µs  19.6 GB/s
//	                  RMA, the engine's process_vm_readv of the client's buffer 87-101 µs  10-12 GB/s
//	1 MiB ReadArray   arena buffer, read into in place                         14 µs  74 GB/s
//	                  the same as a message into it                             44 µs  23.6 GB/s
//	                  message from the engine's arena, into a heap buffer       77 µs  13.6 GB/s
//	                  RMA, the engine's process_vm_writev into the client's  150-229 µs  4.6-7 GB/s
//
// So callers that move much data take their buffers from client.Client.Alloc
// (the transport's arena): their transfers go in place whatever BulkRMA
// says, and need no permission to attach to the client's memory (the
// engine maps the arena at set-up). A heap buffer moves as a message by
// default; BulkRMA moves it by the connection's RMA: on fabric/shm by
// cross-memory attach, slower, and only where the engine may attach to
// the client (ptrace permission); on fabric/tcp as frames the client's
// side applies or answers while it waits for the reply. The engine
// takes its own buffers from engine.ServerOptions.Alloc.
//
// # Waiting
//
// Both sides wait for the other by the fabric's Recv, which on fabric/shm
// spins, then yields, then sleeps. For a call that moves LongBulk (256
// KiB) or more, that spinning is a CPU taken from the copy it waits for
// when the engine's host has none to spare, so there both sides wait
// without it (fabric.RecvLong, through Recv): the client for the answer,
// the session for the next request after answering such a call. The
// engine counts its sessions (engine.ServerOptions.Load) and calls its
// host busy when they are as many as its CPUs; it says so in every reply
// (hint bit 0, HintBusy), and the client
// follows the last reply it got. With fewer clients than CPUs, spinning
// costs nothing the copies need and saves the wake-ups, and both sides
// spin as for small calls.
//
// `launch -n 2 -- ior -a DFS -b 256m -t 1m -w -r -F -i 3` on 2 CPUs, the
// engine in rank 0, two sets of 3 rounds interleaved with the build
// before: write 5.7-6.4 GB/s became 8.6-11.5, read 10-26 became 26-43
// (POSIX beside it: 11.9-12.0 and 38-40). At 1 rank nothing changed (6.3-6.6 and 27.5-28.3 both).
// Below 256 KiB a copy is too short for the wake-ups: at 64 KiB, sleeping
// at once cut 2-rank reads from 9.7-11.6 to 4.3-7.3 GB/s.
//
// # Unlink
//
// Unlink (object.Unlinker) is a removal of a directory entry (RemoveIf,
// when the caller knows the entry's value) and the Punch of the object
// it names, in one request: the engine punches only if the removal
// succeeded, and its store writes both in one append to its log when the
// object has no extent files. The namespace's unlink and rename use it:
// an mdtest remove of a file the same mount created is one round trip
// (two for another's file: a Get of the entry first), not three.
// Version 3 of the protocol added RemoveIf; version 4 made Unlink one
// request (version 2 sent two, the second run only if the first
// succeeded, and its engine is refused at the hello). Version 5 added
// the targets' inode counts to Query's reply, for IOR's and mdtest's
// file-system line.
package rpc
