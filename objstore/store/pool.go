package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hpcbench/hpcbench/objstore/object"
	"golang.org/x/sys/unix"
)

// DefaultMaxOpenFiles is the bound of a pool's cache of open extent files
// when Options.MaxOpenFiles is 0.
const DefaultMaxOpenFiles = 1024

// Options tune an open pool.
type Options struct {
	// SyncKV makes every KV change (Put, Insert, Remove, Punch, AllocOIDs)
	// stable (fdatasync of the log, shared by the writers that arrive
	// while one runs: group commit) before it returns. Without it a change
	// is written with write(2) before it returns: it survives the engine
	// being killed, not the host crashing (Close syncs it all the same).
	// The container table is always synced.
	SyncKV bool
	// MaxOpenFiles bounds how many extent files the pool keeps open at
	// once (least recently used ones are closed); 0 means
	// DefaultMaxOpenFiles. The pool also remembers up to 16 times as many
	// extent files found missing (memory only, no descriptors).
	MaxOpenFiles int
}

// Pool is an open pool: the engine's side of object.Pool. It holds the
// pool's engine.lock until Close.
type Pool struct {
	dir     string
	meta    poolMeta
	targets []string // absolute target paths in placement order
	opts    Options
	lock    *os.File
	table   *kvStore // the container table: dkey label, akey "cont"
	fds     *fdCache

	mu     sync.Mutex
	conts  map[string]*contState // the open containers, by UUID
	closed bool
	// shut is closed for the containers' calls, which do not take mu.
	shut atomic.Bool
}

// tableOID and tableAkey address the container table's records in
// pool.log: dkey is the label, the value contMeta's JSON.
var tableOID = object.OID{}

const tableAkey = "cont"

// contMeta is a container's record in the table.
type contMeta struct {
	UUID  string           `json:"uuid"`
	Props object.ContProps `json:"props"`
}

// Open opens the pool in dir for this engine. It fails if another engine
// (another process, or another Open in this one) has it open, naming the
// holder's pid, and if pool.json or a target is missing or not this pool's.
func Open(dir string, o Options) (*Pool, error) {
	p, err := open(dir, o)
	if err != nil {
		return nil, fmt.Errorf("open pool %s: %w", dir, err)
	}
	return p, nil
}

func open(dir string, o Options) (*Pool, error) {
	meta, err := readPoolMeta(dir)
	if err != nil {
		return nil, err
	}
	if o.MaxOpenFiles < 0 {
		return nil, fmt.Errorf("MaxOpenFiles %d: %w", o.MaxOpenFiles, object.ErrInvalid)
	}
	lock, err := lockPool(dir)
	if err != nil {
		return nil, err
	}
	p := &Pool{dir: dir, meta: meta, opts: o, lock: lock, conts: make(map[string]*contState)}
	if o.MaxOpenFiles == 0 {
		p.opts.MaxOpenFiles = DefaultMaxOpenFiles
	}
	p.fds = newFDCache(p.opts.MaxOpenFiles)
	ok := false
	defer func() {
		if !ok {
			lock.Close()
		}
	}()
	for i, t := range meta.Targets {
		path := targetPath(dir, t)
		if err := checkTargetMeta(path, meta.UUID, i); err != nil {
			return nil, err
		}
		p.targets = append(p.targets, path)
	}
	if p.table, err = openKV(filepath.Join(dir, poolLog), true, false); err != nil {
		return nil, err
	}
	if err := p.sweep(); err != nil {
		p.table.close()
		return nil, err
	}
	ok = true
	return p, nil
}

// readPoolMeta reads and parses dir's pool.json, of this build's schema.
func readPoolMeta(dir string) (poolMeta, error) { return readPoolMetaFrom(dir, SchemaVersion) }

// Check says why Open would refuse the pool in dir for its pool.json (a
// damaged one, or one of another schema version), reading nothing else
// and taking no lock. A dir without pool.json wraps object.ErrNotExist.
func Check(dir string) error {
	_, err := readPoolMeta(dir)
	return err
}

// readPoolMetaFrom reads and parses dir's pool.json, of a schema version
// from oldest on.
func readPoolMetaFrom(dir string, oldest int) (poolMeta, error) {
	b, err := os.ReadFile(filepath.Join(dir, poolFile))
	if errors.Is(err, fs.ErrNotExist) {
		return poolMeta{}, fmt.Errorf("%s holds no pool (no %s): %w", dir, poolFile, object.ErrNotExist)
	}
	if err != nil {
		return poolMeta{}, err
	}
	m, err := parsePoolMetaFrom(b, oldest)
	if err != nil {
		return poolMeta{}, fmt.Errorf("%s: %w", filepath.Join(dir, poolFile), err)
	}
	return m, nil
}

// targetPath resolves a target of pool.json: relative ones are in dir.
func targetPath(dir, t string) string {
	if filepath.IsAbs(t) {
		return t
	}
	return filepath.Join(dir, t)
}

// checkTargetMeta checks that path is target index of pool uuid.
func checkTargetMeta(path, uuid string, index int) error {
	b, err := os.ReadFile(filepath.Join(path, targetFile))
	if err != nil {
		return fmt.Errorf("target %d: %w", index, err)
	}
	var m targetMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("target %d %s: %w: %v", index, path, object.ErrInvalid, err)
	}
	if m.Pool != uuid || m.Index != index {
		return fmt.Errorf("target %d %s: %w (it is target %d of pool %s)", index, path, object.ErrInvalid, m.Index, m.Pool)
	}
	return nil
}

// sweep removes what a crash in CreateCont or DestroyCont left: container
// logs and target directories of containers the table does not hold.
func (p *Pool) sweep() error {
	known := make(map[string]bool)
	labels, _, err := p.table.list(tableOID, "", 0)
	if err != nil {
		return err
	}
	for _, l := range labels {
		m, err := p.contMeta(l)
		if err != nil {
			return err // delete nothing on a table that does not read
		}
		known[m.UUID] = true
	}
	logs, err := os.ReadDir(filepath.Join(p.dir, contDir))
	if err != nil {
		return err
	}
	for _, e := range logs {
		if uuid, ok := strings.CutSuffix(e.Name(), ".log"); !ok || !known[uuid] {
			os.Remove(filepath.Join(p.dir, contDir, e.Name()))
		}
	}
	for _, t := range p.targets {
		ents, err := os.ReadDir(t)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() && isUUID(e.Name()) && !known[e.Name()] {
				os.RemoveAll(filepath.Join(t, e.Name()))
			}
		}
	}
	return nil
}

// contMeta returns label's record in the table.
func (p *Pool) contMeta(label string) (contMeta, error) {
	b, err := p.table.get(tableOID, label, tableAkey)
	if err != nil {
		return contMeta{}, fmt.Errorf("container %q: %w", label, err)
	}
	var m contMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return contMeta{}, fmt.Errorf("container %q: record in %s: %w", label, poolLog, err)
	}
	return m, nil
}

// Query describes the pool and its targets' file systems.
func (p *Pool) Query(ctx context.Context) (object.PoolInfo, error) {
	if err := ctx.Err(); err != nil {
		return object.PoolInfo{}, fmt.Errorf("query pool %s: %w", p.dir, err)
	}
	info := object.PoolInfo{UUID: p.meta.UUID}
	for i, t := range p.targets {
		var st unix.Statfs_t
		if err := unix.Statfs(t, &st); err != nil {
			return object.PoolInfo{}, fmt.Errorf("query pool %s: target %s: %w", p.dir, t, err)
		}
		unit := uint64(st.Frsize) // sizes are in fragments, as statvfs(3) and df count them
		if unit == 0 {
			unit = uint64(st.Bsize)
		}
		info.Targets = append(info.Targets, object.TargetInfo{
			Index: i, Path: t,
			TotalBytes: st.Blocks * unit, FreeBytes: st.Bfree * unit,
			TotalInodes: st.Files, FreeInodes: st.Ffree,
			FSID: fmt.Sprintf("%x:%x", uint32(st.Fsid.Val[0]), uint32(st.Fsid.Val[1])),
		})
	}
	return info, nil
}

// Targets returns the pool's target directories in placement order.
func (p *Pool) Targets() []string { return append([]string(nil), p.targets...) }

// Dir returns the pool's directory.
func (p *Pool) Dir() string { return p.dir }

// ListConts returns the labels of the pool's containers, sorted.
func (p *Pool) ListConts(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list containers of %s: %w", p.dir, err)
	}
	labels, _, err := p.table.list(tableOID, "", 0)
	if err != nil {
		return nil, fmt.Errorf("list containers of %s: %w", p.dir, err)
	}
	sort.Strings(labels)
	return labels, nil
}

// Close closes the pool's open containers and logs and releases its lock.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("close pool %s: %w", p.dir, fs.ErrClosed)
	}
	p.closed = true
	p.shut.Store(true)
	var errs []error
	for _, st := range p.conts {
		errs = append(errs, st.kv.close())
	}
	p.conts = nil
	p.fds.closeAll()
	errs = append(errs, p.table.close(), p.lock.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close pool %s: %w", p.dir, err)
	}
	return nil
}

var _ object.Pool = (*Pool)(nil)
