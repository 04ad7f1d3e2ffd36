package verbs

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// devRef is an open device with the port and GID this transport uses,
// shared by a listener and the connections it accepted: the last to go
// closes the device.
type devRef struct {
	dev    Device
	port   int
	pattr  PortAttr
	attr   DeviceAttr
	gid    GIDEntry
	global bool // route by GID (RoCE, or an explicit GIDIndex)

	mu   sync.Mutex
	refs int
}

// acquire takes a reference.
func (d *devRef) acquire() {
	d.mu.Lock()
	d.refs++
	d.mu.Unlock()
}

// release drops a reference and closes the device with the last.
func (d *devRef) release() error {
	d.mu.Lock()
	d.refs--
	last := d.refs == 0
	d.mu.Unlock()
	if !last {
		return nil
	}
	if err := d.dev.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", d.dev.Name(), err)
	}
	return nil
}

// openDevice opens the devices, keeps the one o names (or the first whose
// port is active) and closes the others. The result holds one reference.
func openDevice(open Opener, o Options) (*devRef, error) {
	devs, err := open()
	if err != nil {
		return nil, err
	}
	var chosen *devRef
	var why []string
	for _, d := range devs {
		if chosen != nil || (o.Device != "" && d.Name() != o.Device) {
			continue
		}
		ref, err := prepare(d, o)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		chosen = ref
	}
	var errs []error
	for _, d := range devs {
		if chosen == nil || d != chosen.dev {
			if err := d.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if chosen == nil {
		names := make([]string, len(devs))
		for i, d := range devs {
			names[i] = d.Name()
		}
		switch {
		case len(devs) == 0:
			return nil, errors.Join(append([]error{errors.New("no RDMA device")}, errs...)...)
		case o.Device != "" && len(why) == 0:
			return nil, errors.Join(append([]error{fmt.Errorf("no RDMA device %q: have %s", o.Device, strings.Join(names, ", "))}, errs...)...)
		}
		return nil, errors.Join(append([]error{fmt.Errorf("no usable RDMA device: %s", strings.Join(why, "; "))}, errs...)...)
	}
	if len(errs) > 0 {
		_ = chosen.dev.Close()
		return nil, errors.Join(errs...)
	}
	return chosen, nil
}

// prepare checks d's port and chooses its GID.
func prepare(d Device, o Options) (*devRef, error) {
	attr, err := d.Query()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	pa, err := d.QueryPort(o.Port)
	if err != nil {
		return nil, fmt.Errorf("%s port %d: %w", d.Name(), o.Port, err)
	}
	if pa.State != PortActive {
		return nil, fmt.Errorf("%s port %d is %s, not PORT_ACTIVE", d.Name(), o.Port, pa.State)
	}
	gids := make([]GIDEntry, 0, pa.GIDTableLen)
	for i := range pa.GIDTableLen {
		g, err := d.QueryGID(o.Port, i)
		if err != nil {
			continue // an empty entry fails on some devices
		}
		gids = append(gids, g)
	}
	g, global, err := pickGID(pa.LinkLayer, gids, o.GIDIndex)
	if err != nil {
		return nil, fmt.Errorf("%s port %d: %w", d.Name(), o.Port, err)
	}
	return &devRef{dev: d, port: o.Port, pattr: pa, attr: attr, gid: g, global: global, refs: 1}, nil
}

// pickGID chooses the GID a connection's GRH uses and whether to route by
// it. want >= 0 is an explicit index, which routes by GID on any link. On
// InfiniBand with AutoGID the LID routes and no GID is used. On Ethernet
// (RoCE) with AutoGID the first RoCE v2 entry with an IPv4-mapped address
// (::ffff:a.b.c.d) is chosen, else the first RoCE v2 entry: perftest's
// and rdma_cm's preference, since v2 is routable.
func pickGID(link LinkLayer, gids []GIDEntry, want int) (GIDEntry, bool, error) {
	if want >= 0 {
		for _, g := range gids {
			if g.Index == want {
				if g.GID == (GID{}) {
					return GIDEntry{}, false, fmt.Errorf("GID index %d is empty", want)
				}
				return g, true, nil
			}
		}
		return GIDEntry{}, false, fmt.Errorf("GID index %d: the port has %d entries", want, len(gids))
	}
	if link != LinkEthernet {
		return GIDEntry{}, false, nil
	}
	var v2 *GIDEntry
	for i, g := range gids {
		if g.Type != GIDTypeRoCEv2 || g.GID == (GID{}) {
			continue
		}
		if isIPv4Mapped(g.GID) {
			return g, true, nil
		}
		if v2 == nil {
			v2 = &gids[i]
		}
	}
	if v2 != nil {
		return *v2, true, nil
	}
	return GIDEntry{}, false, fmt.Errorf("RoCE port without a RoCE v2 GID (%d entries): set GIDIndex", len(gids))
}

// isIPv4Mapped reports whether g is ::ffff:a.b.c.d.
func isIPv4Mapped(g GID) bool {
	for _, b := range g[:10] {
		if b != 0 {
			return false
		}
	}
	return g[10] == 0xff && g[11] == 0xff
}
