// Package fakeverbs is an in-memory RDMA fabric: fake devices whose
// reliable-connected queue pairs reach each other by LID or GID and QP
// number through a Fabric the test creates, implementing verbs.Device for
// tests of fabric/verbs and of the packages above it.
//
// It is strict where a bug in the transport would show: a send into a
// queue pair with no receive posted is an RNR (retried, with rnr_retry 7
// for ever, until the peer posts one, else failed with "RNR retry counter
// exceeded"); an RDMA write or read checks the rkey, the region's bounds
// and its access flags (else "remote access error", and the requester's
// QP goes to ERR); a message longer than the receive buffer fails both
// ends; posting on a QP that is not in RTS fails; the QP state machine
// refuses illegal transitions and RTR checks that the peer exists, that
// the path MTU fits the port and that the two ends' QP numbers and PSNs
// name each other (a mismatch is "transport retry counter exceeded", as
// the packets would be dropped); send and receive queue depths and CQ
// sizes are enforced (a CQ overrun fails Poll); closing a device, PD or CQ
// that still has objects made from it is EBUSY.
//
// What it does not model: timing (a work request executes when it is
// posted, or when an RNR-blocked one is retried, never later), so it
// cannot catch a send buffer reused before its completion; packet loss;
// and multiple ports (every device has port 1 only).
//
// Everything is under one mutex per Fabric; there is no global state.
package fakeverbs

import (
	"fmt"
	"sync"

	"github.com/hpcbench/hpcbench/fabric/verbs"
	"golang.org/x/sys/unix"
)

// Fabric connects fake devices. The zero value is not usable; call New.
type Fabric struct {
	mu      sync.Mutex
	hcas    []*HCA
	nextLID uint16
}

// New returns an empty fabric.
func New() *Fabric { return &Fabric{nextLID: 1} }

// Config describes a fake device. Zero fields take the defaults noted.
type Config struct {
	// Name is the device's name; "fake0", "fake1", ... when empty.
	Name string
	// LinkLayer is InfiniBand (addressed by LID) when unspecified, or
	// Ethernet (RoCE: addressed by GID, LID 0).
	LinkLayer verbs.LinkLayer
	// State is the port's state; PORT_ACTIVE when 0.
	State verbs.PortState
	// ActiveMTU is the port's MTU; 4096 when 0.
	ActiveMTU verbs.MTU
	// MaxInline is the most inline bytes a QP may ask for; 256 when 0.
	MaxInline int
	// MaxQPWR is the deepest queue a QP may have; 4096 when 0.
	MaxQPWR int
	// MaxCQE is the largest CQ; 65536 when 0.
	MaxCQE int
	// GIDs is the port's GID table. When nil: on InfiniBand one entry, the
	// link-local fe80::<guid>; on Ethernet a RoCE v1 and a RoCE v2 entry of
	// fe80::<guid> and a RoCE v1 and a RoCE v2 entry of the IPv4-mapped
	// ::ffff:10.0.0.<n>, as a RoCE NIC with one IPv4 address shows them.
	GIDs []verbs.GIDEntry
}

// HCA is one fake device's hardware, shared by every Device opened on it.
type HCA struct {
	f     *Fabric
	cfg   Config
	guid  uint64
	lid   uint16
	qps   map[uint32]*qp
	mrs   map[uint32]*mr // by lkey and by rkey
	fail  map[string]unix.Errno
	next  uint32 // next QP number and key
	addr  uint64 // next region address
	opens int    // Devices open on it
}

// AddDevice adds a device to the fabric and returns its hardware.
func (f *Fabric) AddDevice(c Config) *HCA {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.hcas)
	if c.Name == "" {
		c.Name = fmt.Sprintf("fake%d", n)
	}
	if c.LinkLayer == verbs.LinkUnspecified {
		c.LinkLayer = verbs.LinkInfiniBand
	}
	if c.State == 0 {
		c.State = verbs.PortActive
	}
	if c.ActiveMTU == 0 {
		c.ActiveMTU = verbs.MTU4096
	}
	if c.MaxInline == 0 {
		c.MaxInline = 256
	}
	if c.MaxQPWR == 0 {
		c.MaxQPWR = 4096
	}
	if c.MaxCQE == 0 {
		c.MaxCQE = 1 << 16
	}
	h := &HCA{
		f: f, cfg: c, guid: 0x0002c90300a00000 + uint64(n),
		qps: map[uint32]*qp{}, mrs: map[uint32]*mr{}, fail: map[string]unix.Errno{},
		next: 0x100 + uint32(n)<<12, addr: 0x10000000 + uint64(n)<<36,
	}
	if c.LinkLayer == verbs.LinkInfiniBand {
		h.lid = f.nextLID
		f.nextLID++
	}
	if h.cfg.GIDs == nil {
		ll := verbs.GID{0: 0xfe, 1: 0x80}
		for i := range 8 {
			ll[8+i] = byte(h.guid >> (56 - 8*i))
		}
		if c.LinkLayer == verbs.LinkInfiniBand {
			h.cfg.GIDs = []verbs.GIDEntry{{Index: 0, GID: ll, Type: verbs.GIDTypeIB}}
		} else {
			v4 := verbs.GID{10: 0xff, 11: 0xff, 12: 10, 13: 0, 14: 0, 15: byte(n + 1)}
			h.cfg.GIDs = []verbs.GIDEntry{
				{Index: 0, GID: ll, Type: verbs.GIDTypeRoCEv1},
				{Index: 1, GID: ll, Type: verbs.GIDTypeRoCEv2},
				{Index: 2, GID: v4, Type: verbs.GIDTypeRoCEv1},
				{Index: 3, GID: v4, Type: verbs.GIDTypeRoCEv2},
			}
		}
	}
	f.hcas = append(f.hcas, h)
	return h
}

// Name is the device's name.
func (h *HCA) Name() string { return h.cfg.Name }

// LID is the port's LID, 0 on Ethernet.
func (h *HCA) LID() uint16 { return h.lid }

// FailNext makes the next call of the named verb ("ibv_create_qp",
// "ibv_reg_mr", ...) on this device fail with errno e, once.
func (h *HCA) FailNext(call string, e unix.Errno) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.fail[call] = e
}

// injected returns the error FailNext armed for call, consuming it; the
// fabric's lock is held.
func (h *HCA) injected(call string) error {
	if e, ok := h.fail[call]; ok {
		delete(h.fail, call)
		return verbs.Errno(call, e)
	}
	return nil
}

// OpenQPs is how many QPs exist on the device, for tests that check that
// a transport destroys what it made.
func (h *HCA) OpenQPs() int {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	return len(h.qps)
}

// OpenDevices is how many Devices are open on the hardware.
func (h *HCA) OpenDevices() int {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	return h.opens
}

// Opener returns an opener of the named devices, in that order, or of
// every device of the fabric when names is empty. Each call opens new
// Device handles.
func (f *Fabric) Opener(names ...string) verbs.Opener {
	return func() ([]verbs.Device, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var hs []*HCA
		if len(names) == 0 {
			hs = f.hcas
		}
		for _, n := range names {
			found := false
			for _, h := range f.hcas {
				if h.cfg.Name == n {
					hs, found = append(hs, h), true
				}
			}
			if !found {
				return nil, fmt.Errorf("fakeverbs: no device %q", n)
			}
		}
		devs := make([]verbs.Device, len(hs))
		for i, h := range hs {
			h.opens++
			devs[i] = &device{h: h}
		}
		return devs, nil
	}
}

// lookupQP finds the QP a packet addressed by lid or gid and qpn reaches;
// the lock is held.
func (f *Fabric) lookupQP(global bool, lid uint16, gid verbs.GID, qpn uint32) *qp {
	for _, h := range f.hcas {
		if global {
			if !h.hasGID(gid) {
				continue
			}
		} else if h.lid == 0 || h.lid != lid {
			continue
		}
		if q := h.qps[qpn]; q != nil {
			return q
		}
	}
	return nil
}

// hasGID reports whether gid is in the port's table.
func (h *HCA) hasGID(gid verbs.GID) bool {
	for _, e := range h.cfg.GIDs {
		if e.GID == gid {
			return true
		}
	}
	return false
}
