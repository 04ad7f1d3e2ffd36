package verbs

import (
	"errors"
	"fmt"
	"net"
)

// DeviceInfo describes one device as ibv_devinfo -v does, for hpcbench
// fabric info.
type DeviceInfo struct {
	Name string
	DeviceAttr
	Ports []PortInfo
}

// PortInfo describes one port of a device.
type PortInfo struct {
	Port int
	PortAttr
	// GIDs are the port's non-empty GID table entries.
	GIDs []GIDEntry
}

// Devices describes every RDMA device of this host and its ports. Without
// -tags verbs it returns ErrNotBuilt; on a host without devices, an error
// wrapping ErrNoDevice.
func Devices() ([]DeviceInfo, error) { return Describe(OpenDevices) }

// Describe describes the devices open returns, and closes them.
func Describe(open Opener) (infos []DeviceInfo, err error) {
	devs, err := open()
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, d := range devs {
			if cerr := d.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("closing %s: %w", d.Name(), cerr))
			}
		}
	}()
	for _, d := range devs {
		in, err := describe(d)
		if err != nil {
			return nil, err
		}
		infos = append(infos, in)
	}
	return infos, nil
}

// describe queries one device, its ports and their GID tables.
func describe(d Device) (DeviceInfo, error) {
	attr, err := d.Query()
	if err != nil {
		return DeviceInfo{}, fmt.Errorf("%s: %w", d.Name(), err)
	}
	in := DeviceInfo{Name: d.Name(), DeviceAttr: attr}
	for port := 1; port <= attr.PhysPorts; port++ {
		pa, err := d.QueryPort(port)
		if err != nil {
			return DeviceInfo{}, fmt.Errorf("%s port %d: %w", d.Name(), port, err)
		}
		pi := PortInfo{Port: port, PortAttr: pa}
		for i := range pa.GIDTableLen {
			g, err := d.QueryGID(port, i)
			if err != nil || g.GID == (GID{}) {
				continue // empty entries fail or read as zero
			}
			pi.GIDs = append(pi.GIDs, g)
		}
		in.Ports = append(in.Ports, pi)
	}
	return in, nil
}

// String formats g as an IPv6 address, as ibv_devinfo -v prints GIDs.
func (g GID) String() string { return net.IP(g[:]).String() }

// GUIDString formats a node GUID as ibv_devinfo does
// ("0002:c903:00a0:0000").
func GUIDString(guid uint64) string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", guid>>48, guid>>32&0xffff, guid>>16&0xffff, guid&0xffff)
}
