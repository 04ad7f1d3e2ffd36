// Package router presents the engines of a job, one per host, as one
// object.Pool: each engine owns the targets of the pool on its host, and
// the router places every object over the targets of all of them, as one
// DAOS pool spans the engines of its servers.
//
// # Placement (the on-disk contract)
//
// The members are the engines in engine order (engine 0 first). With
// member m owning Targets[m] targets, the pool has N = sum of Targets
// targets, counted engine-major: global target g belongs to the member
// whose targets, member 0's first, include g.
//
//   - Chunk k of array object oid (byte off is in chunk off/ChunkSize)
//     lives on the member owning object.Placement(oid, k, N). Each member
//     numbers the chunks of an object it holds in their global order: it
//     keeps chunk k as its own chunk kl, the count of the object's chunks
//     before k that it holds too, at its byte kl*ChunkSize + off mod
//     ChunkSize, so its store places a dense array over its own targets,
//     and its array's size maps back to the end of its last chunk's bytes.
//     With one member, kl is k.
//   - The KV records of an object of width 1 (Put, Insert, Get, Remove,
//     RemoveIf, List on oid) all live on its home member: the owner of
//     object.Placement(oid, 0, N). An object of width w > 1 spreads them
//     by dkey, as DAOS spreads a KV object's dkeys over its shards: the
//     records under dkey live on the owner of object.Placement(oid, k, N)
//     with k = FNV-1a(dkey) mod w. A listing then goes member after member
//     of the object's span, its anchors "M:ANCHOR" naming the member.
//     DFS's directories are S1 by default (--dfs.dir_oclass), one engine
//     each; SX directories spread their entries over every engine.
//   - The span of oid is the set of members owning Placement(oid, k, N)
//     for k in [0, width), width = oid.Class().Width(N): the members that
//     may hold any of its bytes. It always holds the home member. An
//     array's size is the largest of its span members' sizes; SetSize,
//     SyncArray and Punch go to every member of the span.
//
// Object ids come from member 0 alone (one sequence for the pool), and a
// container's properties are member 0's.
//
// # The layout record
//
// Reading a container with another placement than the one it was written
// with would misplace its data, so each container records the pool map it
// was laid out over: in member 0's own container (not routed), object
// LayoutOID (class S1, sequence object.FirstSeq-1: reserved, below the
// ids AllocOIDs hands out), dkey "layout", akey "engines", the text
//
//	v1 N=5 targets=3,2 hosts=h0,h1
//
// Only the target counts matter to placement; the hosts are for messages.
// CreateCont writes the record; OpenCont refuses a container whose record
// names other target counts than the router's. A container without one
// (made before engines were per host, or by "hpcbench dfs cont create")
// opens over one engine as it is, and over several only while it holds no
// object, the record being written then.
//
// With one member, OpenCont returns the member's container itself, so the
// single-engine path costs nothing per operation. QueryCont sums Objects
// and ArrayBytes over the members: an object striped over several engines
// counts once on each, and the layout record counts as one.
package router
