// Package engine is the engine of hpcbench's DAOS-like object store,
// daos_engine's place, and the administration of its pools, dmg's and
// the daos tool's. It owns:
//
//   - the RPC server (Serve): it accepts clients on a listener, answers
//     each one's hello and runs a session per connection that dispatches
//     its requests, in the wire protocol of objstore/rpc, to the pool (an
//     object.Pool, objstore/store's on the engine's targets) and to the
//     containers the client opened; a client that goes has its container
//     handles closed. The sessions count against the host's CPUs (Load)
//     for the waiting policy of bulk calls (objstore/rpc's doc,
//     "Waiting").
//   - the engine (Start): a pool opened and served on every transport
//     objstore/transport gives an engine, its addresses published in the
//     pool's directory (AddrFile) when it serves many jobs (hpcbench dfs
//     engine).
//   - the engine process a job's first rank on a host starts (StartChild,
//     ServeChild, ChildCommand): unbound from the rank's CPUs, stopped
//     when the rank closes its stdin or dies.
//   - the administration hpcbench dfs pool and cont run (AdminPool,
//     QueryPool, ContPart, CheckPool, CheckSchema): on the pool directly
//     when no engine holds it, else through the standalone engine that
//     does, as one of its clients. That is why admin.go, and only it,
//     imports objstore/client (and its router, which knows a container's
//     part of a multi-host layout); the rest of the engine does not.
package engine
