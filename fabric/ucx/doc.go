// Package ucx is the UCX transport: fabric.Conn and fabric.RMAConn over
// UCP, the layer of UCX that MPI libraries (MPICH's ch4:ucx, Open MPI's
// pml/ucx) run on, so that hpcbench measures what a site's MPI gets from
// its UCX.
//
// # Loading
//
// libucp is not linked: the first New (or Available) dlopens libucp.so.0,
// else libucp.so, through purego, so that the binary hpcbench's README
// builds (CGO_ENABLED=0) uses whatever UCX a host has and needs none to
// build. A missing library is ErrNoLibrary, whose message names the
// Debian package (libucx0). Each call goes through purego.SyscallN on the
// function's address, with its parameter structs and out-arguments in
// the worker's scratch memory on the heap (see scratch): no allocation a
// call, and no pointer to a goroutine stack, which moves when it grows.
// Built with -tags ucxcgo (and cgo), the same addresses are called
// through a C trampoline instead (call_cgo.go), which the README's
// figures compare. abi.go lays out the UCP structs of UCX 1.13 by hand;
// TestLayout checks them against ucp.h with the C compiler.
//
// # One worker per transport
//
// A Transport is one UCP context (tag matching and RMA) and one worker,
// made from UCX's own configuration: the UCX_* environment as UCX reads
// it, with Options (UCX_TLS, UCX_NET_DEVICES) set over it through
// ucp_config_modify. Every Listener and Conn of the transport shares the
// worker; a mutex serialises the calls into it (the worker is
// UCS_THREAD_MODE_SERIALIZED, because goroutines move between threads).
// Nothing runs in the background: the call that waits drives the worker's
// progress for everyone (wait.go: spin, then yield, then nap).
//
// # Connecting and tags
//
// A listener's address is "ucx://" and, in hex, its endpoint id and the
// worker's address (handshake.go). A dialer creates an endpoint to that
// worker and sends a hello (rank, its own endpoint id, its worker
// address, its pid and host) to the listener's control tag; Accept takes
// it, creates the endpoint back and answers with its id. Every message's
// 64-bit tag holds the receiving side's endpoint id and the fabric tag
// (tags.go), so that a receive matches only its own peer's messages, in
// order. A Close sends a goodbye on a control tag, which fails the peer's
// waits with fabric.ErrClosed.
//
// # Messages
//
// Send is ucp_tag_send_nbx. A message of at most EagerLimit bytes never
// waits for the peer (eager.go): UCX completes it at once, or Send copies
// it and posts the copy, so that a collective may send both halves of an
// exchange before receiving, in one goroutine. A larger one returns when
// UCX is done with the buffer: after the receiver took it, above UCX's
// rendezvous threshold. Recv is ucp_tag_recv_nbx; while it waits it takes
// other tags' messages out of UCX's unexpected queue into buffers of its
// own (Conn.drain), so that a sender's rendezvous never waits for a
// receive that comes after another one. A Recv whose context ends cancels
// its receive; a message that has already matched it is returned whole.
//
// # RMA
//
// Expose maps the buffer (ucp_mem_map) and packs its remote key; the key a
// peer gets also holds the region's address and length and a CRC-32, so
// that a damaged key is refused before UCX is given it (rma.go). Write is
// ucp_put_nbx and a flush of the endpoint; Read is ucp_get_nbx. Conn is a
// fabric.Progresser: where UCX emulates RMA with active messages (tcp,
// shared memory without cma), the target's progress carries it out.
//
// # Failures
//
// Endpoints use UCX's default error handling, as ucx_perftest and MPI
// do: UCX 1.13's shared-memory transports refuse
// UCP_ERR_HANDLING_MODE_PEER. A peer on this host that exits is found by
// its pid while a wait goes on; one on another host that dies without a
// goodbye is found only at the caller's deadline. A Send whose context
// ends mid-rendezvous closes the endpoint (UCX cannot take a send back)
// and, if UCX does not complete the request soon after, leaves it to UCX.
package ucx
