package router

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// cont is a container over several members' containers of one label
// (see the package doc for what goes where).
type cont struct {
	p     *Pool
	conts []object.Container // conts[m] is member m's
	props object.ContProps
}

var (
	_ object.Container = (*cont)(nil)
	_ object.Unlinker  = (*cont)(nil)
)

// Props returns member 0's properties.
func (c *cont) Props() object.ContProps { return c.props }

// AllocOIDs reserves ids from member 0's sequence alone.
func (c *cont) AllocOIDs(ctx context.Context, cl object.Class, n int) (object.OID, error) {
	oid, err := c.conts[0].AllocOIDs(ctx, cl, n)
	return oid, c.p.on(0, err)
}

// kv returns the member holding oid's records under dkey, and its
// container.
func (c *cont) kv(oid object.OID, dkey string) (int, object.Container) {
	m := c.p.pl.record(oid, dkey)
	return m, c.conts[m]
}

// Put stores val on the member holding (oid, dkey).
func (c *cont) Put(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	m, k := c.kv(oid, dkey)
	return c.p.on(m, k.Put(ctx, oid, dkey, akey, val))
}

// Insert stores val on the member holding (oid, dkey) if dkey has no akey
// yet.
func (c *cont) Insert(ctx context.Context, oid object.OID, dkey, akey string, val []byte) error {
	m, k := c.kv(oid, dkey)
	return c.p.on(m, k.Insert(ctx, oid, dkey, akey, val))
}

// Get returns the value from the member holding (oid, dkey).
func (c *cont) Get(ctx context.Context, oid object.OID, dkey, akey string) ([]byte, error) {
	m, k := c.kv(oid, dkey)
	v, err := k.Get(ctx, oid, dkey, akey)
	return v, c.p.on(m, err)
}

// Remove deletes dkey on the member holding it.
func (c *cont) Remove(ctx context.Context, oid object.OID, dkey string) error {
	m, k := c.kv(oid, dkey)
	return c.p.on(m, k.Remove(ctx, oid, dkey))
}

// RemoveIf deletes dkey on the member holding it if akey holds expect.
func (c *cont) RemoveIf(ctx context.Context, oid object.OID, dkey, akey string, expect []byte) error {
	m, k := c.kv(oid, dkey)
	return c.p.on(m, k.RemoveIf(ctx, oid, dkey, akey, expect))
}

// List lists oid's dkeys: on its home member for an object of width 1;
// for a wider one, member after member of its span, the anchor saying
// which member and where in its listing ("M:ANCHOR").
func (c *cont) List(ctx context.Context, oid object.OID, anchor string, max int) ([]string, string, error) {
	if oid.Class().Width(c.p.pl.n) <= 1 {
		m := c.p.pl.home(oid)
		keys, next, err := c.conts[m].List(ctx, oid, anchor, max)
		return keys, next, c.p.on(m, err)
	}
	span := c.p.pl.stripe(oid).members()
	i, inner := 0, ""
	if anchor != "" {
		var err error
		if i, inner, err = parseListAnchor(anchor, span); err != nil {
			return nil, "", err
		}
	}
	var keys []string
	for ; i < len(span); i, inner = i+1, "" {
		m := span[i]
		for {
			left := 0 // no limit
			if max > 0 {
				if left = max - len(keys); left == 0 {
					return keys, listAnchor(m, inner), nil
				}
			}
			got, next, err := c.conts[m].List(ctx, oid, inner, left)
			if err != nil {
				return nil, "", c.p.on(m, err)
			}
			keys, inner = append(keys, got...), next
			if next == "" {
				break
			}
		}
	}
	return keys, "", nil
}

// listAnchor is where a listing of a wide KV object goes on: member m's
// listing from inner.
func listAnchor(m int, inner string) string { return strconv.Itoa(m) + ":" + inner }

// parseListAnchor reads listAnchor's form back as an index into span.
func parseListAnchor(anchor string, span []int) (int, string, error) {
	ms, inner, ok := strings.Cut(anchor, ":")
	m, err := strconv.Atoi(ms)
	if ok && err == nil {
		if i := slices.Index(span, m); i >= 0 {
			return i, inner, nil
		}
	}
	return 0, "", fmt.Errorf("list: anchor %q: %w (want one a listing of this object returned)", anchor, object.ErrInvalid)
}

// maxOff bounds a transfer's end, so that cutting it at chunk boundaries
// cannot overflow.
const maxOff = math.MaxInt64 / 2

// checkArray refuses a transfer of n bytes at off of a that cannot be cut
// into chunks.
func checkArray(op string, a object.Array, off int64, n int) error {
	if a.ChunkSize <= 0 || off < 0 || off > maxOff-int64(n) {
		return fmt.Errorf("%s %v: %w (chunk size %d, offset %d, %d bytes)", op, a.OID, object.ErrInvalid, a.ChunkSize, off, n)
	}
	return nil
}

// WriteArray writes each chunk's piece of p on the member holding it.
func (c *cont) WriteArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) error {
	if err := checkArray("write", a, off, len(p)); err != nil {
		return err
	}
	return byMember(c.p.pl.members, c.p.pl.stripe(a.OID).pieces(a, off, len(p)), func(_ int, pc piece) error {
		return c.p.on(pc.m, c.conts[pc.m].WriteArray(ctx, a, pc.off, p[pc.lo:pc.hi], f))
	})
}

// ReadArray reads each chunk's piece of p from the member holding it.
// When a member's end lies inside its piece, the rest of the piece is
// zeroed, and the array's size, over all its members, says how many bytes
// of p lie before its end.
func (c *cont) ReadArray(ctx context.Context, a object.Array, off int64, p []byte, f object.IOFlags) (int, error) {
	if err := checkArray("read", a, off, len(p)); err != nil {
		return 0, err
	}
	st := c.p.pl.stripe(a.OID)
	ps := st.pieces(a, off, len(p))
	if len(ps) == 1 && st.alone(ps[0].m) {
		n, err := c.conts[ps[0].m].ReadArray(ctx, a, off, p, f)
		if err == io.EOF {
			return n, err
		}
		return n, c.p.on(ps[0].m, err)
	}
	got := make([]int, len(ps))
	err := byMember(c.p.pl.members, ps, func(i int, pc piece) error {
		n, err := c.conts[pc.m].ReadArray(ctx, a, pc.off, p[pc.lo:pc.hi], f)
		got[i] = min(max(n, 0), pc.hi-pc.lo)
		if err == io.EOF {
			return nil
		}
		return c.p.on(pc.m, err)
	})
	if err != nil {
		return 0, err
	}
	short := false
	for i, pc := range ps {
		if pc.lo+got[i] < pc.hi {
			clear(p[pc.lo+got[i] : pc.hi])
			short = true
		}
	}
	if !short {
		return len(p), nil
	}
	size, err := c.ArraySize(ctx, a)
	if err != nil {
		return 0, err
	}
	if n := int(min(max(size-off, 0), int64(len(p)))); n < len(p) {
		return n, io.EOF
	}
	return len(p), nil
}

// span calls fn on the container of every member of the span of the
// object whose stripe is st, at once, and returns the first error.
func (c *cont) span(st stripe, fn func(m int, k object.Container) error) error {
	return first(each(st.members(), func(m int) error { return c.p.on(m, fn(m, c.conts[m])) }))
}

// ArraySize returns the largest of the span members' sizes, each mapped
// from the member's local chunks to the array's.
func (c *cont) ArraySize(ctx context.Context, a object.Array) (int64, error) {
	if a.ChunkSize <= 0 {
		return 0, fmt.Errorf("size of %v: %w (chunk size %d)", a.OID, object.ErrInvalid, a.ChunkSize)
	}
	st := c.p.pl.stripe(a.OID)
	sizes := make([]int64, c.p.pl.members)
	err := c.span(st, func(m int, k object.Container) error {
		n, err := k.ArraySize(ctx, a)
		sizes[m] = st.globalEnd(m, n, a.ChunkSize)
		return err
	})
	if err != nil {
		return 0, err
	}
	return slices.Max(sizes), nil
}

// SetSize sets the array's size on every member of its span, each in its
// local chunks: a truncation cuts each member's bytes past size, an
// extension makes the largest size size.
func (c *cont) SetSize(ctx context.Context, a object.Array, size int64) error {
	if err := checkArray("set size of", a, size, 0); err != nil {
		return err
	}
	st := c.p.pl.stripe(a.OID)
	return c.span(st, func(m int, k object.Container) error { return k.SetSize(ctx, a, st.localSize(m, size, a.ChunkSize)) })
}

// SyncArray syncs the array on every member of its span.
func (c *cont) SyncArray(ctx context.Context, a object.Array) error {
	return c.span(c.p.pl.stripe(a.OID), func(_ int, k object.Container) error { return k.SyncArray(ctx, a) })
}

// Punch removes oid from every member of its span (which holds its KV
// records too).
func (c *cont) Punch(ctx context.Context, oid object.OID) error {
	return c.span(c.p.pl.stripe(oid), func(_ int, k object.Container) error { return k.Punch(ctx, oid) })
}

// Unlink removes dkey from oid and then, only if that succeeded, punches
// victim (object.Unlinker): in one call when the member holding (oid,
// dkey) holds all of victim and its container is an Unlinker, and as a
// removal there and a Punch over victim's span otherwise.
func (c *cont) Unlink(ctx context.Context, oid object.OID, dkey, akey string, expect []byte, victim object.OID) (bool, error) {
	m, k := c.kv(oid, dkey)
	if u, ok := k.(object.Unlinker); ok && c.p.pl.stripe(victim).alone(m) {
		removed, err := u.Unlink(ctx, oid, dkey, akey, expect, victim)
		return removed, c.p.on(m, err)
	}
	if err := object.RemoveDkey(ctx, k, oid, dkey, akey, expect); err != nil {
		return false, c.p.on(m, err)
	}
	return true, c.Punch(ctx, victim)
}

// Close closes every member's container and joins their errors.
func (c *cont) Close() error { return c.p.closeAll(c.conts) }
