// Package verbs is the RDMA verbs transport: a fabric.Conn and
// fabric.RMAConn over one reliable-connected (RC) queue pair per pair of
// ranks, set up as perftest sets up its tests, over a TCP side channel.
//
// # What is Go and what is cgo
//
// Everything but one file is pure Go and builds everywhere: the Device
// interface (device.go), which covers exactly the part of libibverbs the
// transport uses; the queue pair state machine and its attributes
// (qp.go); the endpoint record the side channel carries (exchange.go); the
// slot protocol and its credits (ring.go, completion.go); the Conn (conn.go,
// send.go, recv.go, rma.go, wait.go); the Transport and Listener
// (transport.go, listener.go, handshake.go); and device description for
// hpcbench fabric info (info.go). Package fakeverbs implements Device in
// memory, strictly enough that the transport's bugs show (see its doc), and
// the tests run the fabrictest conformance suite over it.
//
// ibv.go is the binding to rdma-core's libibverbs, built only with
// -tags verbs on Linux with cgo:
//
//	go build -tags verbs ./cmd/hpcbench   # needs libibverbs-dev (pkg-config libibverbs)
//
// Without the tag, OpenDevices and Devices return ErrNotBuilt and a
// Transport from New fails to Listen or Dial with it; NewWithOpener over
// a fakeverbs fabric works in both builds.
//
// # Connecting
//
// A listener's address is verbs://HOST:PORT/DEVICE:PORT: the TCP side
// channel, then the device and port (informative). The dialer connects to
// the side channel and sends its endpoint record (rank, LID, QP number,
// PSN, GID, MTU, its receive ring's geometry); the acceptor creates its
// queue pair, answers with its own record and moves to RTS; the dialer
// moves to RTS and the two exchange a ready byte, after which either side
// may send. The socket stays open: its end is how a side learns that its
// peer closed or died, since RC itself only tells a sender, and only after
// the retry timeout.
//
// InfiniBand routes by LID unless Options.GIDIndex names a GID; RoCE always
// routes by GID, and with AutoGID the transport picks a RoCE v2 entry with
// an IPv4-mapped address, as rdma_cm does.
//
// # Messages: slots, chunks and credits
//
// Each side keeps Options.Slots receives of Options.SlotSize bytes
// posted, in one registered region, and has as many send slots. A message
// goes as a first chunk (a 16-byte header naming tag and length, then
// payload) and as many continuation chunks as its length needs, each one
// IBV_WR_SEND from a send slot (inline when small), each filling one of
// the peer's receive slots. The receiver copies each slot out as soon as
// it polls it, into the waiting Recv's buffer when the message is for it
// and fits, else into a heap buffer kept, in order, for a later Recv of
// its tag, and posts the slot again at once.
//
// A sender may only send while the peer has a receive posted for it (a
// credit), else the peer's adapter answers RNR and the link stalls. It
// starts with the peer's Slots credits and spends one per chunk; the
// receiver returns them in the header of its next message, or in a
// credit-only message once it owes half its ring. Two credits are never
// spent on data, so that a side whose data is blocked can still return
// credits and say goodbye (see ring.go for why this cannot deadlock).
//
// Why chunks through the slots, not a rendezvous (the receiver registering
// its buffer and the sender RDMA-writing into it): a rendezvous makes the
// sender wait for the receiver's Recv of that very message, and fabric.Conn
// lets a Recv of another tag come first (an 8 MiB message of tag 1 sent,
// then tag 2 received first): with one Send at a time, the sender would
// wait for a Recv that waits for the sender. Chunks always drain into the
// unexpected queue, as TCP's socket buffer does. They cost a copy on each
// side and a header per slot; a rendezvous for messages whose Recv is
// already posted would be the next step for bandwidth. Registering every
// buffer for every message also costs more than copying below tens of KiB.
//
// # Progress
//
// Nothing runs in the background except the side channel's watcher. The
// call that waits (a Send for a credit, a Recv for a message, an RMA for
// its completion) polls the completion queue itself, in batches: busy for
// Options.Spin, then napping between polls up to a millisecond, or, with
// Options.EventMode, sleeping in the CQ's completion channel.
//
// # RMA
//
// Expose registers the caller's buffer (pinned, in the cgo binding) with
// remote read and write access and returns a 24-byte key of its address,
// rkey and length; Write and Read check offset and length against the
// key's length before posting one RDMA_WRITE or RDMA_READ from or into
// the caller's buffer, registered for the call. A failed completion
// (a wrong rkey: "remote access error (status 10)") moves the queue pair
// to ERR, as RC does: the connection is unusable afterwards.
//
// # Status
//
// The transport passes fabrictest's conformance suite over fakeverbs
// (default ring, a 4-slot ring of 1 KiB, event mode; under -race). The cgo
// binding compiles and vets, and its constants and status strings are
// checked against verbs.h and ibv_wc_status_str, but it has never run on a
// real RDMA device: the machine it was written on has none, and no RDMA in
// its kernel.
package verbs

// RealDeviceTest says how to run, on an RDMA host, the tests that need a
// real device, and what they check: the machine this transport was
// written on has none, and its other tests run over a fake device.
const RealDeviceTest = "real-device test, on an RDMA host from the source tree (gcc, libibverbs-dev): go test -tags verbs -run RealDevice ./fabric/verbs runs the conformance suite's message and RMA cases over the device's RC queue pairs"
