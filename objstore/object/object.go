package object

import (
	"context"
	"errors"
	"io/fs"
)

// Errors every Container returns for the conditions they name, so callers
// test them with errors.Is whatever implementation is behind the interface.
// They wrap fs's errors, so errors.Is(err, fs.ErrNotExist) also holds.
var (
	// ErrNotExist is a missing pool, container, object, dkey or akey.
	ErrNotExist = &kindError{"does not exist", fs.ErrNotExist}
	// ErrExist is a conditional insert of a dkey that is there already,
	// or a container or pool created twice.
	ErrExist = &kindError{"exists already", fs.ErrExist}
	// ErrInvalid is an argument out of range (a chunk size of 0, an
	// unknown class, a negative offset).
	ErrInvalid = &kindError{"invalid argument", fs.ErrInvalid}
	// ErrChanged is a conditional removal (RemoveIf) that found another
	// value than the one it expected, and so removed nothing.
	ErrChanged = &kindError{"holds another value than expected", errChanged}
)

// errChanged is ErrChanged's base: fs has no error for it.
var errChanged = errors.New("value changed")

type kindError struct {
	text string
	base error
}

func (e *kindError) Error() string        { return e.text }
func (e *kindError) Unwrap() error        { return e.base }
func (e *kindError) Is(target error) bool { return target == e.base }

// IsNotExist reports whether err says something does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// ContProps are a container's properties, fixed when it is created.
type ContProps struct {
	// ChunkSize is the default chunk size of the container's files, in
	// bytes (DFS_DEFAULT_CHUNK_SIZE is 1 MiB).
	ChunkSize int64 `json:"chunk_size"`
	// OClass is the default class of files, DirOClass of directories.
	OClass    Class `json:"oclass"`
	DirOClass Class `json:"dir_oclass"`
}

// Array names an array object and how it is cut: the namespace keeps the
// chunk size in the file's inode, as DFS does, and passes it with each call.
type Array struct {
	// OID is the array's object id; its class places its chunks.
	OID OID
	// ChunkSize is the length of each chunk in bytes, > 0.
	ChunkSize int64
}

// IOFlags ask a transfer for what IOR's flags ask POSIX for.
type IOFlags uint8

const (
	// Direct moves the bytes past the page cache of the engine's targets
	// (O_DIRECT): offsets, lengths and buffers are then multiples of 4 KiB.
	Direct IOFlags = 1 << iota
	// Sync makes the transfer stable before it returns (O_DSYNC).
	Sync
)

// Container is one open container: KV records and array objects. Its
// methods may be called from many goroutines at once. Every method that
// reaches storage takes a context; a call whose context ends returns the
// context's error (a transfer it had started may still complete).
type Container interface {
	// Props returns the container's properties.
	Props() ContProps
	// AllocOIDs reserves n object ids of class c that no other caller of
	// any handle of this container will get, now or after a restart, and
	// returns the first: the ids are first, first.Lo+1, ... first.Lo+n-1,
	// all at or above FirstSeq.
	AllocOIDs(ctx context.Context, c Class, n int) (OID, error)

	// Put stores val under (oid, dkey, akey), replacing what was there.
	Put(ctx context.Context, oid OID, dkey, akey string, val []byte) error
	// Insert stores val under (oid, dkey, akey) only if dkey has no akey
	// yet (DAOS_COND_DKEY_INSERT), and returns ErrExist otherwise: the
	// atomic step that makes create-exclusive work.
	Insert(ctx context.Context, oid OID, dkey, akey string, val []byte) error
	// Get returns the value under (oid, dkey, akey), or ErrNotExist.
	Get(ctx context.Context, oid OID, dkey, akey string) ([]byte, error)
	// Remove deletes dkey and all its akeys from oid (a punch), or
	// returns ErrNotExist when dkey has none.
	Remove(ctx context.Context, oid OID, dkey string) error
	// RemoveIf deletes dkey and all its akeys from oid only if the value
	// under (oid, dkey, akey) is expect, byte for byte: ErrNotExist when
	// there is no such value, ErrChanged when it differs. The check and
	// the removal are one step (DAOS_COND_PUNCH with a compare): a caller
	// that remembers what it wrote removes it without reading it first.
	RemoveIf(ctx context.Context, oid OID, dkey, akey string, expect []byte) error
	// List returns up to max of oid's dkeys after anchor (an opaque cursor;
	// "" starts at the beginning) and the anchor to continue from, "" at
	// the end. max <= 0 means no limit. Order is the implementation's;
	// dkeys inserted or removed during a listing may or may not show.
	List(ctx context.Context, oid OID, anchor string, max int) (dkeys []string, next string, err error)

	// WriteArray writes p at byte off of the array (a hole-filling write:
	// bytes between the old end and off read as zeros).
	WriteArray(ctx context.Context, a Array, off int64, p []byte, f IOFlags) error
	// ReadArray reads len(p) bytes at off. Bytes in holes read as zeros.
	// It returns how many bytes lie before the array's end (at most
	// len(p)); fewer than len(p) comes with io.EOF.
	ReadArray(ctx context.Context, a Array, off int64, p []byte, f IOFlags) (int, error)
	// ArraySize returns the array's size: the end of its highest extent,
	// or the size set by SetSize. An array never written has size 0.
	ArraySize(ctx context.Context, a Array) (int64, error)
	// SetSize truncates or extends the array to size bytes.
	SetSize(ctx context.Context, a Array, size int64) error
	// SyncArray makes the array's written bytes stable (fsync of its
	// extents on every target they are on).
	SyncArray(ctx context.Context, a Array) error

	// Punch removes the whole object: its KV records and its array
	// extents. Punching an object that holds nothing is not an error.
	Punch(ctx context.Context, oid OID) error

	// Close releases the handle; the container stays as it is.
	Close() error
}

// Unlinker is implemented by Containers that remove a dkey and punch an
// object in one step: rpc.Cont in one round trip to its engine, where
// the removal and the punch would take one each, and the engine's store
// in one append to its log. Unlink below uses it when a container has it.
type Unlinker interface {
	// Unlink removes dkey from oid and then, only if that succeeded,
	// punches victim (Punch). The removal is Remove when expect is nil,
	// and RemoveIf(oid, dkey, akey, expect) otherwise. removed says the
	// dkey was removed; err is then the punch's error, and the removal's
	// otherwise.
	Unlink(ctx context.Context, oid OID, dkey, akey string, expect []byte, victim OID) (removed bool, err error)
}

// Unlink removes dkey from oid and then, only if that succeeded, punches
// victim, as Unlinker.Unlink says: with c's own Unlink when c is an
// Unlinker, and with Remove (or RemoveIf) and Punch otherwise.
func Unlink(ctx context.Context, c Container, oid OID, dkey, akey string, expect []byte, victim OID) (removed bool, err error) {
	if u, ok := c.(Unlinker); ok {
		return u.Unlink(ctx, oid, dkey, akey, expect, victim)
	}
	if err := RemoveDkey(ctx, c, oid, dkey, akey, expect); err != nil {
		return false, err
	}
	return true, c.Punch(ctx, victim)
}

// RemoveDkey removes dkey from oid: c.Remove when expect is nil, and
// c.RemoveIf(oid, dkey, akey, expect) otherwise.
func RemoveDkey(ctx context.Context, c Container, oid OID, dkey, akey string, expect []byte) error {
	if expect != nil {
		return c.RemoveIf(ctx, oid, dkey, akey, expect)
	}
	return c.Remove(ctx, oid, dkey)
}

// Pool is an open pool: the containers on its targets.
type Pool interface {
	// Query describes the pool: its targets, their capacity and use.
	Query(ctx context.Context) (PoolInfo, error)
	// CreateCont creates a container called label with props, or returns
	// ErrExist. Zero fields of props take the defaults (DefaultProps).
	CreateCont(ctx context.Context, label string, props ContProps) error
	// OpenCont opens the container called label, or returns ErrNotExist.
	OpenCont(ctx context.Context, label string) (Container, error)
	// ListConts returns the labels of the pool's containers, sorted.
	ListConts(ctx context.Context) ([]string, error)
	// QueryCont describes the container called label.
	QueryCont(ctx context.Context, label string) (ContInfo, error)
	// DestroyCont removes the container called label and everything in
	// it, or returns ErrNotExist.
	DestroyCont(ctx context.Context, label string) error
	// Close releases the handle.
	Close() error
}

// PoolInfo is what Pool.Query reports.
type PoolInfo struct {
	// UUID is the pool's id, fixed at creation.
	UUID string `json:"uuid"`
	// Targets are the pool's targets in placement order.
	Targets []TargetInfo `json:"targets"`
}

// TargetInfo is one target of a pool.
type TargetInfo struct {
	// Index is the target's place in placement order, from 0.
	Index int `json:"index"`
	// Path is the target's directory.
	Path string `json:"path"`
	// TotalBytes and FreeBytes are its file system's capacity and room
	// (free blocks, f_bfree, as IOR's "Used FS" and df's "Used" count).
	TotalBytes uint64 `json:"total_bytes"`
	FreeBytes  uint64 `json:"free_bytes"`
	// TotalInodes and FreeInodes are its file system's inodes: every
	// object's extent files use them.
	TotalInodes uint64 `json:"total_inodes"`
	FreeInodes  uint64 `json:"free_inodes"`
	// FSID names that file system (statfs's f_fsid), so that a sum over
	// targets counts a file system they share once.
	FSID string `json:"fsid"`
}

// ContInfo is what Pool.QueryCont reports.
type ContInfo struct {
	// Label is the container's name in its pool.
	Label string `json:"label"`
	// UUID is the container's id, fixed at creation.
	UUID string `json:"uuid"`
	// Props are its properties.
	Props ContProps `json:"props"`
	// Objects counts objects with a KV record or an array extent, and
	// ArrayBytes the bytes their arrays take: their extents on the
	// targets, and the small arrays an engine holds in its log.
	Objects    int64 `json:"objects"`
	ArrayBytes int64 `json:"array_bytes"`
}
