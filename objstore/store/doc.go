// Package store is the engine's storage of hpcbench's DAOS-like object
// store, in VOS's place: object.Pool and object.Container on local
// directories, with the engine's KV log and its recovery. One engine
// process owns a pool (Open takes an exclusive flock) and serves clients
// over RPC (objstore/engine); nothing else opens its files.
//
// # On-disk layout
//
// A pool is a directory DIR:
//
//	DIR/pool.json          the pool: {"version": 2, "uuid": "...",
//	                       "targets": ["tgt0", ...], "created": RFC 3339};
//	                       targets in placement order, relative ones inside
//	                       DIR; written last by Create (its presence is the
//	                       pool's existence), removed last but one by Destroy
//	DIR/engine.lock        flock(2)ed exclusively by the engine that has the
//	                       pool open; holds its pid, for the error a second
//	                       engine gets
//	DIR/pool.log           KV log of the container table: object 0.0, dkey
//	                       the label, akey "cont", value {"uuid", "props"}
//	DIR/cont/UUID.log      KV log of container UUID: its KV records and its
//	                       object id reservations
//	TARGET/target.json     {"version": 2, "pool_uuid": "...", "index": i}:
//	                       Open checks it, Destroy removes only targets that
//	                       have it
//	TARGET/UUID/HI.LO.CS   extent file of object HI.LO (object.OID.String),
//	                       cut in chunks of CS bytes (hex)
//	                       of container UUID on this target
//
// By default the targets are DefaultTargets directories DIR/tgt0 ...
// DIR/tgtN-1; CreateOptions.Targets puts them anywhere, on other file
// systems too.
//
// Chunk k of an array lives on target object.Placement(oid, k, ntargets),
// the (k mod width)-th of the width targets its class stripes it over, as
// that target's (k div width)-th chunk: its bytes at logical offset off
// are at (k div width) * CS + off mod CS of the target's extent file, so
// each file is dense (schema version 1 put them at off itself, leaving
// holes where the other targets' chunks lie; such pools are refused). An
// array's size is the largest logical end its files reach (or what
// SetSize made it), which is why a file's name carries its chunk size. A file appears at an object's first write, not at
// its creation (objects are created by the namespace's KV records), and
// not at all for a small array: one whose bytes all lie below HoldMax
// (4 KiB), written without object.Direct, is held whole in the
// container's KV log, as DAOS keeps small I/O in SCM, until a write takes
// it past HoldMax (see hold.go).
//
// # KV log format
//
// A log starts with the 8 bytes "HPCBKV02", then frames:
//
//	u32 LE  payload length n (at most 64 MiB)
//	u32 LE  CRC32C (Castagnoli) of the 4 length bytes and the payload
//	n bytes payload: a kind byte, then
//	  1 put      oid (hi u64 LE, lo u64 LE), uvarint len + dkey,
//	             uvarint len + akey, the value (the rest)
//	  2 remove   oid, uvarint len + dkey: tombstone of the dkey's akeys
//	  3 punch    oid: tombstone of the object's records
//	  4 reserve  u64 LE: object ids below it have been handed out
//	  5 array    oid, then the array's whole content (the rest): an
//	             array of at most HoldMax bytes held in the log
//	  6 unarray  oid: the array has moved to its extent files
//	  7 batch    uvarint count (2 or more), then count times a uvarint
//	             length and the payload of one record (not a batch): a
//	             change of several records, applied whole or not at all
//
// Logs that begin "HPCBKV01" (hpcbench before batches) are read the same;
// Open rewrites their first bytes to "HPCBKV02", so that an older hpcbench
// refuses them by their header instead of failing at their first batch.
//
// Every change is one frame appended before the call returns, copied into
// the log's file through a shared mapping (maplog.go: 0.7-1.1 µs a Put in
// BenchmarkKV, against 1.4 µs by write(2); write(2) where the file system
// cannot reserve room ahead), so it survives the engine being killed; with Options.SyncKV the
// log is fdatasync'ed first (group commit: one sync covers the writers
// waiting for it), so it survives the host too. Open replays the log into
// an index in memory (every value is held in memory) and:
//   - cuts a torn tail: a last frame cut short, or failing its checksum, or
//     a bad frame followed only by zeros, from its start or from its end as
//     its length gives it (an append through the mapping that was cut off,
//     with the room reserved after it);
//   - refuses a bad frame with valid data after it (corruption, not a
//     crash), naming the file and the offset;
//   - compacts the log when its garbage (superseded and deleted frames)
//     exceeds its live data: the live records are written to
//     NAME.log.compact, synced, renamed over NAME.log, and the directory
//     synced. Container.Compact does the same on demand.
//
// AllocOIDs records a reservation beyond what it hands out (in batches of
// 4096), so after a restart ids start above every id handed out before.
//
// # Crash consistency of the pool's metadata
//
// CreateCont makes TARGET/UUID and cont/UUID.log, then appends the
// container's record (synced): a crash before leaves files without a
// record, which Open sweeps away. DestroyCont removes the record first,
// then the files; Open sweeps what a crash leaves. Create builds a new
// pool in a hidden directory next to DIR and renames it into place.
//
// # Why a log of our own
//
// The engine owns the store, so a library's single-process directory lock
// costs nothing; the question is speed and simplicity. Measured on this
// project's 2-core build host (ext4, Linux 6.18; scratch module outside the
// project, badger v4.9.6 with DefaultOptions, one transaction a call): 4
// goroutines insert 100,000 records of 100-byte values under keys
// oid|dkey|akey, get them all, delete them all.
//
//	ops/s (two runs)     insert            get               delete
//	this log             223,000-229,000   597,000-666,000   224,000-468,000
//	badger v4            95,000-118,000    265,000-552,000   86,000-93,000
//	this log, SyncKV     4,071             468,000           3,832
//	badger, SyncWrites   1,788             328,000           1,987
//
// The log is a few hundred lines with one format to reason about (above),
// recovers by reading one file, and writes at about twice badger's rate,
// with sync (thanks to group commit) and without. Its cost: every value is
// held in memory, and the whole log is read at Open. List sorts an
// object's dkeys once and keeps them until one is added or removed.
package store
