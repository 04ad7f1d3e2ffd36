package router

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// LayoutOID returns the reserved object id of the layout record, in member
// 0's container: sequence object.FirstSeq-1 of class S1, below every id
// AllocOIDs hands out.
func LayoutOID() object.OID { return object.NewOID(object.S1, object.FirstSeq-1) }

// The layout record's dkey and akeys: engines, the layout (in member 0's
// container, which settle checks, and in every other member's since
// hpcbench recorded parts); member, the member's index (see Part).
const (
	layoutDkey       = "layout"
	layoutAkey       = "engines"
	layoutMemberAkey = "member"
)

// layout is what a layout record says: each member's target count, in
// engine order, and the hosts they were on.
type layout struct {
	targets []int
	hosts   []string
}

// String returns the record's text: "v1 N=5 targets=3,2 hosts=h0,h1".
func (l layout) String() string {
	ts := make([]string, len(l.targets))
	n := 0
	for i, t := range l.targets {
		ts[i], n = strconv.Itoa(t), n+t
	}
	return fmt.Sprintf("v1 N=%d targets=%s hosts=%s", n, strings.Join(ts, ","), strings.Join(l.hosts, ","))
}

// parseLayout parses what String writes.
func parseLayout(s string) (layout, error) {
	var l layout
	f := strings.Fields(s)
	if len(f) < 3 || f[0] != "v1" || !strings.HasPrefix(f[2], "targets=") {
		return l, fmt.Errorf("layout record %q: %w (want \"v1 N=... targets=...\")", s, object.ErrInvalid)
	}
	n := 0
	for _, t := range strings.Split(strings.TrimPrefix(f[2], "targets="), ",") {
		v, err := strconv.Atoi(t)
		if err != nil || v < 1 {
			return l, fmt.Errorf("layout record %q: %w: target count %q", s, object.ErrInvalid, t)
		}
		l.targets, n = append(l.targets, v), n+v
	}
	if f[1] != "N="+strconv.Itoa(n) {
		return l, fmt.Errorf("layout record %q: %w: %s, but the targets add up to %d", s, object.ErrInvalid, f[1], n)
	}
	if len(f) > 3 {
		l.hosts = strings.Split(strings.TrimPrefix(f[3], "hosts="), ",")
	}
	return l, nil
}

// describe words l for messages: "2 engine(s) with targets [3 2] (hosts h0,h1)".
func (l layout) describe() string {
	hosts := make([]string, len(l.targets))
	for i := range hosts {
		hosts[i] = "?"
		if i < len(l.hosts) && l.hosts[i] != "" {
			hosts[i] = l.hosts[i]
		}
	}
	return fmt.Sprintf("%d engine(s) with targets %v (hosts %s)", len(l.targets), l.targets, strings.Join(hosts, ","))
}

// readLayout reads the layout record from c0, member 0's container.
func readLayout(ctx context.Context, c0 object.Container) (layout, error) {
	v, err := c0.Get(ctx, LayoutOID(), layoutDkey, layoutAkey)
	if err != nil {
		return layout{}, err
	}
	return parseLayout(string(v))
}

// settle checks that container label, open on every member as conts, is
// laid out as p places, and records p's layout when it has no record:
// always when fresh (just made on every member), and otherwise with one
// member never (it opens as it is) and with several only while no member's
// container holds an object.
func (p *Pool) settle(ctx context.Context, label string, conts []object.Container, fresh bool) error {
	c0 := conts[0]
	l, err := readLayout(ctx, c0)
	switch {
	case err == nil:
		return p.compare(label, &l)
	case !object.IsNotExist(err):
		return fmt.Errorf("container %q: read its layout record: %w", label, p.on(0, err))
	case !fresh && len(p.members) == 1:
		return nil
	case !fresh:
		used, err := p.holdsObjects(ctx, label)
		if err != nil {
			return err
		}
		if used {
			// Another opener may have recorded the layout since.
			if l, err := readLayout(ctx, c0); err == nil {
				return p.compare(label, &l)
			}
			return p.compare(label, nil)
		}
	}
	err = c0.Insert(ctx, LayoutOID(), layoutDkey, layoutAkey, []byte(p.layout.String()))
	if errors.Is(err, object.ErrExist) { // another opener recorded it first
		if l, err = readLayout(ctx, c0); err == nil {
			return p.compare(label, &l)
		}
	}
	if err != nil {
		return fmt.Errorf("container %q: record its layout: %w", label, p.on(0, err))
	}
	return p.recordParts(ctx, label, conts)
}

// recordParts writes, with several members, each member's index in its
// container, and the layout in every member's but member 0's (which has
// it): a query of one host's pool can then say what part of the container
// it holds (Part).
func (p *Pool) recordParts(ctx context.Context, label string, conts []object.Container) error {
	if len(p.members) < 2 {
		return nil
	}
	text := []byte(p.layout.String())
	return errors.Join(p.errsOf(func(m int, _ object.Pool) error {
		if m > 0 {
			if err := conts[m].Put(ctx, LayoutOID(), layoutDkey, layoutAkey, text); err != nil {
				return fmt.Errorf("container %q: record its layout: %w", label, p.on(m, err))
			}
		}
		if err := conts[m].Put(ctx, LayoutOID(), layoutDkey, layoutMemberAkey, []byte(strconv.Itoa(m))); err != nil {
			return fmt.Errorf("container %q: record its part: %w", label, p.on(m, err))
		}
		return nil
	})...)
}

// Part says what part of a container laid out over several engines c, one
// engine's container, holds: "engine 1 of 2 engine(s) with targets [4 4]
// (hosts h0,h1)". It returns "" for a container of one engine, or one
// with no layout record. A container recorded before parts were has the
// layout in member 0's container only, which is then that part.
func Part(ctx context.Context, c object.Container) (string, error) {
	l, err := readLayout(ctx, c)
	if object.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if len(l.targets) < 2 {
		return "", nil
	}
	m := 0
	switch v, err := c.Get(ctx, LayoutOID(), layoutDkey, layoutMemberAkey); {
	case err == nil:
		if m, err = strconv.Atoi(string(v)); err != nil || m < 0 || m >= len(l.targets) {
			return "", fmt.Errorf("layout record: member %q of %d engines: %w", v, len(l.targets), object.ErrInvalid)
		}
	case !object.IsNotExist(err):
		return "", err
	}
	return fmt.Sprintf("engine %d of %s", m, l.describe()), nil
}

// holdsObjects reports whether any member's container label holds an
// object.
func (p *Pool) holdsObjects(ctx context.Context, label string) (bool, error) {
	used := make([]bool, len(p.members))
	err := p.forEach(func(m int, pool object.Pool) error {
		ci, err := pool.QueryCont(ctx, label)
		used[m] = ci.Objects > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("container %q has no layout record: count its objects: %w", label, err)
	}
	return slices.Contains(used, true), nil
}

// compare returns nil when was, the layout container label was made with
// (nil: one engine of unknown targets), places as p does, and an error
// wrapping object.ErrInvalid otherwise.
func (p *Pool) compare(label string, was *layout) error {
	what := "one engine (it has no layout record)"
	if was != nil {
		if slices.Equal(was.targets, p.layout.targets) {
			return nil
		}
		what = was.describe()
	}
	return fmt.Errorf("container %s was laid out over %s; this job has %s: its data would be misplaced; "+
		"use another container, or run on the hosts it was made on: %w", label, what, p.layout.describe(), object.ErrInvalid)
}
