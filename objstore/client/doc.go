// Package client is what a rank links to reach hpcbench's DAOS-like object
// store, libdaos's place: a Client is a connection to one engine that
// implements object.Pool over the pool the engine serves, and the
// containers it opens implement object.Container, every call forwarded to
// the engine in the wire protocol of objstore/rpc. Dial connects through a
// transport given to it; DialEngine through the transports
// objstore/transport chooses, to the first of an engine's addresses this
// process reaches. Its subpackage router makes one object.Pool of the
// engines of a job, one per host, as one DAOS pool spans the engines of
// its servers.
//
// # One call at a time per Client
//
// A Client runs its calls in lock step: a call holds the connection from
// its request to its reply, and concurrent callers take turns. mdtest and
// IOR run one goroutine per rank, so nothing is lost; the reply lands in
// the caller's own buffer (ReadArray's data straight into p) with no
// hand-off between goroutines, which BenchmarkHandoff measured costing
// far more than the round trip itself: a Get-sized round trip over shm
// took 0.32 µs received by the caller and 43 µs when a receiver goroutine
// handed the reply over a channel (tcp: 16 µs against 430 µs). A small
// call costs a fabric round trip and about a microsecond more: a 64-byte
// Get to an engine process took 0.8-1.3 µs over shm (memobj directly:
// 0.12 µs; the fabric's own round trip in one process: 0.36 µs).
//
// A caller whose context ends while it waits for a reply returns at once;
// the late reply is dropped by the next call (replies carry the request
// id). A transfer interrupted half way leaves the connection out of step,
// and later calls fail saying so.
package client
