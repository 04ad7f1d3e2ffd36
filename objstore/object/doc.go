// Package object is the object model of hpcbench's DAOS-like object store:
// the part of DAOS's object and array API (daos_obj, daos_array, the pool
// and container handles of libdaos) that the DFS namespace needs, as one Go
// interface that the store's packages meet at. It owns object ids with
// their classes, Placement (the on-disk contract of which target holds a
// chunk), container properties and labels, the Pool, Container and
// Unlinker interfaces, and the errors every implementation returns.
//
//   - objstore/store implements it on an engine's targets (array extents
//     as plain file extents, KV records in the engine's own store);
//   - objstore/client implements it in a client that forwards every call
//     to an engine over a fabric.Conn (objstore/rpc's protocol), and
//     objstore/engine serves it to such clients; objstore/client/router
//     implements it over the engines of several hosts;
//   - objstore/namespace builds DFS (directories, files, the superblock)
//     on any Container.
//
// Addressing is DAOS's: an object id (OID) carries its class in its high
// bits; a KV record is addressed by (oid, dkey, akey); an array object holds
// bytes at offsets, cut into chunks of a fixed size, and chunk k (dkey k in
// DAOS's array layout) lives on one target chosen by Placement.
package object
