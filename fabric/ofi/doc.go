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
// sending to its own address works with both. A Conn is a pair of ids, one
// per end, carried in the upper half of each message's 64-bit tag (FI_TAGGED,
// fi_tsend and fi_trecv), so that the provider matches (connection, tag) as
// MPI matches (peer, tag). Control messages (hello, welcome, refusal, close)
// use the tag's top bit and a receive that stays posted. The business card is
// "ofi:PROVIDER://" + hex(fi_getname) + "/" + the listener's id.
//
// Progress is manual: whoever waits (a Send, Recv, Accept, RMA call or
// Progress) polls the completion queue for everyone, spinning briefly and
// then sleeping in growing steps, so an idle rank does not keep a CPU.
package ofi
