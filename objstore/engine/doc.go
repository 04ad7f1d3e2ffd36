// Package engine is the engine of hpcbench's DAOS-like object store,
// daos_engine's place: it serves a pool (an object.Pool, objstore/store's
// on the engine's targets) to clients over the fabric in the wire protocol
// of objstore/rpc. Serve accepts clients on a listener, answers each one's
// hello and runs a session per connection that dispatches its requests to
// the pool and to the containers the client opened; a client that goes
// has its container handles closed. The sessions count against the host's
// CPUs (Load) for the waiting policy of bulk calls (objstore/rpc's doc,
// "Waiting").
package engine
