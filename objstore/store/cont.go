package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hpcbench/hpcbench/objstore/object"
	"golang.org/x/sys/unix"
)

// contState is an open container, shared by its handles.
type contState struct {
	label string
	meta  contMeta
	kv    *kvStore
	dirs  []string // TARGET/UUID, in placement order
	sizes *sizeIndex
	locks arrayLocks // where each array lives: see hold.go
	refs  int
}

// isLabel reports whether s may be a container label: DAOS's rule (letters,
// digits, '-', '_', '.', ':'), 1 to 127 bytes. A loop, not a regexp: the
// regexp's 127-fold repetition cost every hpcbench process 0.4 ms and 1,800
// allocations at start, rank or launcher, whether it used a pool or not.
func isLabel(s string) bool {
	if len(s) < 1 || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_', c == '.', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

func checkLabel(label string) error {
	if !isLabel(label) {
		return fmt.Errorf("label %q: %w (want 1 to 127 of A-Z a-z 0-9 _ . : -)", label, object.ErrInvalid)
	}
	return nil
}

// contLog is the path of a container's KV log.
func (p *Pool) contLog(uuid string) string { return filepath.Join(p.dir, contDir, uuid+".log") }

// contDirs are a container's directories on the targets.
func (p *Pool) contDirs(uuid string) []string {
	dirs := make([]string, len(p.targets))
	for i, t := range p.targets {
		dirs[i] = filepath.Join(t, uuid)
	}
	return dirs
}

// CreateCont creates the container label: its directory on each target and
// its KV log, then its record in the table (synced), which is the moment
// it exists; a crash before leaves files Open sweeps away.
func (p *Pool) CreateCont(ctx context.Context, label string, props object.ContProps) error {
	if err := p.createCont(ctx, label, props); err != nil {
		return fmt.Errorf("create container %q: %w", label, err)
	}
	return nil
}

func (p *Pool) createCont(ctx context.Context, label string, props object.ContProps) error {
	if err := checkLabel(label); err != nil {
		return err
	}
	props = props.WithDefaults()
	if err := props.Check(); err != nil {
		return err
	}
	if err := p.lockOpen(ctx); err != nil {
		return err
	}
	defer p.mu.Unlock()
	if _, err := p.table.get(tableOID, label, tableAkey); err == nil {
		return object.ErrExist
	}
	m := contMeta{UUID: newUUID(), Props: props}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	for _, d := range p.contDirs(m.UUID) {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	kv, err := openKV(p.contLog(m.UUID), true, true)
	if err != nil {
		return err
	}
	if err := kv.close(); err != nil {
		return err
	}
	if err := syncDir(filepath.Join(p.dir, contDir)); err != nil {
		return err
	}
	return p.table.put(tableOID, label, tableAkey, b, true)
}

// lockOpen takes p.mu unless ctx has ended or the pool is closed; when it
// returns nil, the caller unlocks p.mu.
func (p *Pool) lockOpen(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fs.ErrClosed
	}
	return nil
}

// acquire returns label's open state, opening its log if no handle has.
func (p *Pool) acquire(label string) (*contState, error) {
	if err := p.lockOpen(context.Background()); err != nil {
		return nil, err
	}
	defer p.mu.Unlock()
	m, err := p.contMeta(label) // under p.mu: DestroyCont cannot come between
	if err != nil {
		return nil, err
	}
	if st := p.conts[m.UUID]; st != nil {
		st.refs++
		return st, nil
	}
	kv, err := openKV(p.contLog(m.UUID), p.opts.SyncKV, false)
	if err != nil {
		return nil, err
	}
	dirs := p.contDirs(m.UUID)
	sizes, err := loadSizes(dirs)
	if err != nil {
		_ = kv.close()
		return nil, err
	}
	st := &contState{label: label, meta: m, kv: kv, dirs: dirs, sizes: sizes, refs: 1}
	if err := st.resolveMoves(); err != nil {
		_ = kv.close()
		return nil, err
	}
	p.conts[m.UUID] = st
	return st, nil
}

// release ends a use of st; the last one closes its log and files.
func (p *Pool) release(st *contState) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	st.refs--
	if st.refs > 0 || p.closed {
		return nil
	}
	delete(p.conts, st.meta.UUID)
	p.fds.evict(func(k fdKey) bool { return k.cont == st.meta.UUID })
	return st.kv.close()
}

// OpenCont opens the container label.
func (p *Pool) OpenCont(ctx context.Context, label string) (object.Container, error) {
	c, err := p.OpenContainer(ctx, label)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// OpenContainer opens the container label, as OpenCont does, returning the store's
// own type (which has Compact).
func (p *Pool) OpenContainer(ctx context.Context, label string) (*Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open container %q: %w", label, err)
	}
	st, err := p.acquire(label)
	if err != nil {
		return nil, fmt.Errorf("open container %q: %w", label, err)
	}
	return &Container{p: p, st: st}, nil
}

// QueryCont describes the container label: its record, and the objects and
// extent bytes found in its log and on its targets.
func (p *Pool) QueryCont(ctx context.Context, label string) (object.ContInfo, error) {
	if err := ctx.Err(); err != nil {
		return object.ContInfo{}, fmt.Errorf("query container %q: %w", label, err)
	}
	st, err := p.acquire(label)
	if err != nil {
		return object.ContInfo{}, fmt.Errorf("query container %q: %w", label, err)
	}
	defer p.release(st)
	info := object.ContInfo{Label: label, UUID: st.meta.UUID, Props: st.meta.Props, ArrayBytes: st.kv.heldBytes()}
	objs := make(map[string]bool)
	for _, oid := range st.kv.objects() {
		objs[oid.String()] = true
	}
	for _, d := range st.dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			return object.ContInfo{}, fmt.Errorf("query container %q: %w", label, err)
		}
		for _, e := range ents {
			if oid, _, err := parseExtentName(e.Name()); err == nil {
				objs[oid.String()] = true
			} else {
				objs[e.Name()] = true
			}
			var s unix.Stat_t
			if unix.Stat(filepath.Join(d, e.Name()), &s) == nil {
				info.ArrayBytes += s.Blocks * 512
			}
		}
	}
	info.Objects = int64(len(objs))
	return info, nil
}

// DestroyCont removes the container label: its record first (synced: from
// then on it does not exist), then its log and target directories. It
// refuses while a handle has the container open.
func (p *Pool) DestroyCont(ctx context.Context, label string) error {
	if err := p.destroyCont(ctx, label); err != nil {
		return fmt.Errorf("destroy container %q: %w", label, err)
	}
	return nil
}

func (p *Pool) destroyCont(ctx context.Context, label string) error {
	if err := p.lockOpen(ctx); err != nil {
		return err
	}
	defer p.mu.Unlock()
	m, err := p.contMeta(label)
	if err != nil {
		return err
	}
	if st := p.conts[m.UUID]; st != nil {
		return fmt.Errorf("%d handles have it open: %w", st.refs, ErrBusy)
	}
	if err := p.table.remove(tableOID, label); err != nil {
		return err
	}
	var errs []error
	if err := os.Remove(p.contLog(m.UUID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, d := range p.contDirs(m.UUID) {
		errs = append(errs, os.RemoveAll(d))
	}
	return errors.Join(errs...)
}
