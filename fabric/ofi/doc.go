// Package ofi is a fabric transport over libfabric (OFI): hpcbench's
// "-p ofi:PROVIDER" (ofi:tcp, ofi:shm, ofi:udp, ofi:verbs;ofi_rxm, …).
//
// libfabric is loaded at run time with purego (libfabric.so.1, Debian's
// libfabric1), so a CGO_ENABLED=0 binary uses the site's libfabric where it
// is installed and refuses the transport, naming the library and the
// package, where it is not. Most of fabric.h's calls are static inline
// wrappers around function pointers in the fid structures (ep->tagged->send);
// this package reads those pointers from the structures, laid out as
// libfabric 1.17's headers lay them out (the API version it asks fi_getinfo
// for), and calls them with purego.SyscallN. abi_test.go checks every
// offset and constant against the installed headers when gcc is present.
//
// One process opens one reliable-datagram (FI_EP_RDM) endpoint per
// Transport, shared by its Listeners and Conns: libfabric's tcp and shm
// providers hang with two endpoints in one process, and one endpoint
// sending to its own address works with both (the conformance suite runs
// both ends of every pair on it). A Conn is a pair of ids, one per end,
// carried in the upper half of each message's 64-bit tag (tags.go), so
// that the provider matches (connection, tag) as MPI matches (peer, tag).
// Control messages (hello, welcome, refusal, close, and a rendezvous' CTS
// and FIN; control.go) use the tag's top bit and receives that stay
// posted. The business card is "ofi:PROVIDER://HOST/NAME/LISTENER"
// (addr.go): the endpoint's fi_getname in hex and the listener's id.
//
// Messages the provider injects whole go by fi_tinjectdata; longer ones
// as a header carrying their length in the CQ data, then a body copied
// into a buffer of the endpoint's (below 64 KiB) or a rendezvous: the
// receive's buffer registered and named in a CTS, the sender's fi_write
// into it, a FIN (rendezvous.go). No receive is posted shorter than the
// message it may get, and a Send never waits for the peer's Recv. Two
// faults of libfabric 1.17's shm provider are worked around: a truncated
// long message spins for ever, and a receive is now and then completed
// with another tag's message (stray.go).
//
// With -e msg (EndpointMsg) a Transport uses connected endpoints instead
// (msgfabric.go, msglistener.go, msgconn.go, msgrma.go, msgwire.go): a
// passive endpoint per Listener, listening, whose fi_getname (a sockaddr)
// is the card "ofi:PROVIDER://HOST/NAME/msg"; fi_connect with the dialer's
// rank as connection data, fi_accept with the listener's, FI_CONNREQ,
// FI_CONNECTED and FI_SHUTDOWN read from an event queue per fabric and
// domain; and an active endpoint with its own completion queue per Conn.
// tcp's MSG endpoints have no tags, so the tag travels in the CQ data and
// hpcbench matches it over bounce receives that stay posted; long messages
// go by the same rendezvous (CTS, fi_write, FIN), or in pieces when the
// peer's Recv is late. Two MSG endpoints in one process work (the
// conformance suite runs both ends in the test binary).
//
// Progress is manual: whoever waits (a Send, Recv, Accept, RMA call or
// Progress) polls the completion queue for everyone under the endpoint's
// lock, spinning for 5 ms and then sleeping in growing steps (pacer.go),
// so an idle rank does not keep a CPU.
package ofi
