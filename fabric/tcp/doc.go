// Package tcp is the TCP fabric transport: one TCP connection per pair of
// ranks, with TCP_NODELAY.
//
// # Addresses
//
// A rank listens on Options.Listen (all interfaces and a kernel-chosen port
// by default) and publishes "tcp://host:port". The host is Options.Publish
// when set, the listening IP when Listen names one, and otherwise the first
// non-loopback IPv4 address that this machine's host name resolves to, or
// 127.0.0.1 when there is none (enough for every rank on one host).
// Reachable is true for every tcp address.
//
// # Wire format
//
// A connection opens with a handshake: the dialer sends a 12-byte hello
// ("HPCB", uint16 WireVersion, uint16 zero, uint32 rank, little-endian) and
// the acceptor answers with its own. Accept reports the dialer's rank from
// it; a connection whose first bytes are not a hello is closed and Accept
// waits for the next one, and peers of different wire versions refuse each
// other with both versions in the error.
//
// Then each message is a 12-byte header (uint32 tag, uint64 payload length,
// little-endian) followed by the payload. The length word's top byte is
// the frame's kind: 0 for a message, others for the one-sided RMA frames.
//
// # One-sided RMA
//
// A Conn is a fabric.RMAConn and a fabric.Progresser, with libfabric's
// manual progress: Write sends its bytes as a frame, which the target's read
// side (a Recv, a Progress, or a Read of its own) copies straight into the
// exposed region; Read sends a request, which the target's read side hands
// to a goroutine of the connection that writes the answer, so that two
// peers answering each other's large reads never wait for each other. The
// frames are handled in stream order: a Write has landed before any message
// sent after it is received. rma.go has the frames' layout.
//
// # Data path
//
// Send writes header and payload with one writev (net.Buffers), without
// copying the payload. Recv reads a header, and when the tag is the one it
// waits for, reads the payload straight into the caller's buffer; messages
// with other tags are read into memory of their own and queued per tag,
// oldest first, for later Recvs. Neither path allocates per message: the
// header buffers are the connection's, and a context reused across calls
// keeps its registration (see side).
//
// A Recv that finds no bytes on the socket first busy-polls it with
// nonblocking reads for up to Options.RecvSpin (yielding the CPU between
// tries, so that a peer woken onto this CPU, or a rank sharing it, still
// runs), and only then parks in the network poller, whose wake-up costs
// more than a small message's round trip. The budget adapts per
// connection: it halves after a wait that a full spin would not have
// covered and doubles back after one it would have. A context's
// cancellation or deadline and Close end the busy-poll as well.
//
// # Concurrency and cancellation
//
// Send and Recv have separate locks, so one of each may run at the same
// time; two peers that both send 8 MiB while receiving in another goroutine
// make progress because each side's Recv drains what the other's Send
// writes. A context's deadline becomes the socket's read or write deadline
// and its cancellation sets a deadline in the past. A Recv interrupted by
// its context, even within a message, keeps its place in the stream and the
// connection stays usable. A Send interrupted within a message shuts the
// write side down (the peer sees ErrClosed, never half a message). Close
// closes the socket, which ends both.
package tcp
