package transport

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
	"github.com/hpcbench/hpcbench/fabric/ucx"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/internal/units"
)

// Info writes what provider offers on this host (hpcbench fabric info):
// tcp's interfaces, shm's rings and /dev/shm, verbs' devices and ports as
// ibv_devinfo shows them. A device that provider lacks is an error.
func Info(b *bytes.Buffer, provider, device string) error {
	if p, isOFI, err := ofi.ParseProvider(provider); isOFI || provider == "ofi" {
		if err != nil && provider != "ofi" {
			return fmt.Errorf("-p %w", err)
		}
		return ofiInfo(b, p, device)
	}
	switch provider {
	case "tcp":
		return tcpInfo(b, device)
	case "shm":
		return shmInfo(b, device)
	case "verbs":
		return verbsInfo(b, device)
	case ucx.Name:
		if err := ucx.Available(); err != nil && device == "" {
			fmt.Fprintf(b, "    not available: %v\n", err)
			return nil
		}
		if err := ucx.Info(b, device); err != nil {
			return fmt.Errorf("-p ucx: %w", err)
		}
		return nil
	}
	return fmt.Errorf("-p %s: no such provider: want one of %s", provider, strings.Join(Providers(), ", "))
}

// tcpInfo lists the interfaces with their addresses, MTU, state and the
// link speed sysfs reports.
func tcpInfo(b *bytes.Buffer, device string) error {
	ifaces, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list the network interfaces: %w", err)
	}
	var names []string
	found := false
	for _, ifc := range ifaces {
		names = append(names, ifc.Name)
		if device != "" && ifc.Name != device {
			continue
		}
		found = true
		var addrs []string
		if as, err := ifc.Addrs(); err == nil {
			for _, a := range as {
				addrs = append(addrs, a.String())
			}
		}
		state := "down"
		if ifc.Flags&net.FlagUp != 0 {
			state = "up"
		}
		fmt.Fprintf(b, "    interface %s: %s, mtu %d, %s", ifc.Name, strings.Join(addrs, " "), ifc.MTU, state)
		if s, err := os.ReadFile("/sys/class/net/" + ifc.Name + "/speed"); err == nil && !strings.HasPrefix(string(s), "-") {
			fmt.Fprintf(b, ", %s Mb/s", strings.TrimSpace(string(s)))
		}
		b.WriteString("\n")
	}
	if !found {
		return fmt.Errorf("-d %s: no such interface: have %s", device, strings.Join(names, ", "))
	}
	fmt.Fprintf(b, "    messages: up to %s (a stream with a %d-byte header per message); -d takes an interface or a local address\n",
		units.FormatSize(tcp.MaxMessageSize), tcp.FrameHeaderLen)
	b.WriteString("    RMA: one-sided writes and reads as frames of their own, carried out by the target's side of the connection as it reads it (manual progress)\n")
	return nil
}

// shmInfo says what shared memory offers on this host.
func shmInfo(b *bytes.Buffer, device string) error {
	if device != "" {
		return fmt.Errorf("-d %s: shm has no devices", device)
	}
	o := shm.DefaultOptions()
	fmt.Fprintf(b, "    host: %d CPUs; processes of this host only\n", runtime.NumCPU())
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err == nil {
		free, total := int64(st.Bavail)*st.Bsize, int64(st.Blocks)*st.Bsize
		fmt.Fprintf(b, "    /dev/shm: %s free of %s\n", units.FormatSize(free), units.FormatSize(total))
	}
	fmt.Fprintf(b, "    rings: %s each way per pair; messages up to %s are copied through them, larger ones move in one copy (cross-memory attach above %s)\n",
		units.FormatSize(int64(o.RingSize)), units.FormatSize(int64(o.EagerLimit)), units.FormatSize(int64(o.CMAThreshold)))
	return nil
}

// verbsInfo lists the RDMA devices and their ports, as ibv_devinfo does,
// or says why there are none; a -d that names none of them is an error.
func verbsInfo(b *bytes.Buffer, device string) error {
	fmt.Fprintf(b, "    %s\n", verbs.RealDeviceTest)
	devs, err := verbs.Devices()
	if err != nil {
		fmt.Fprintf(b, "    not available: %v\n", err)
		if device != "" {
			return fmt.Errorf("-d %s: %w", device, err)
		}
		return nil
	}
	found := device == ""
	var names []string
	for _, d := range devs {
		names = append(names, d.Name)
		if device != "" && d.Name != device {
			continue
		}
		found = true
		fmt.Fprintf(b, "    device %s: node GUID %s, firmware %s, %d ports; max_qp %d, max_qp_wr %d, max_cq %d, max_cqe %d, max_mr %d, max_mr_size %s, max_sge %d, max_qp_rd_atom %d\n",
			d.Name, verbs.GUIDString(d.NodeGUID), d.FWVersion, d.PhysPorts, d.MaxQP, d.MaxQPWR, d.MaxCQ, d.MaxCQE, d.MaxMR,
			units.FormatSize(int64(d.MaxMRSize)), d.MaxSGE, d.MaxQPRdAtom)
		for _, p := range d.Ports {
			fmt.Fprintf(b, "        port %d: %s, %s, LID %d, active MTU %s (max %s), %d GIDs\n",
				p.Port, p.State, p.LinkLayer, p.LID, p.ActiveMTU, p.MaxMTU, len(p.GIDs))
		}
	}
	if !found {
		return fmt.Errorf("-d %s: no such RDMA device: have %s", device, strings.Join(names, ", "))
	}
	return nil
}

// ofiInfo lists libfabric's providers (or provider's), one entry per
// provider, fabric, domain and endpoint type as fi_info lists them, and
// only the domain device when it is given; a host without libfabric says
// so.
func ofiInfo(b *bytes.Buffer, provider, device string) error {
	v, err := ofi.Version()
	if err != nil {
		fmt.Fprintf(b, "    %v\n", err)
		return nil
	}
	fmt.Fprintf(b, "    libfabric %s; -p ofi:PROVIDER takes the provider's name, -d a domain\n", v)
	infos, err := ofi.Infos(provider)
	if err != nil {
		return err
	}
	n := 0
	for _, in := range infos {
		if device != "" && in.Domain != device {
			continue
		}
		n++
		fmt.Fprintf(b, "    provider: %s\n        fabric: %s\n        domain: %s\n        type: %s\n        caps: %s\n",
			in.Provider, in.Fabric, in.Domain, in.Endpoint, in.Caps)
	}
	if n == 0 && device != "" {
		return fmt.Errorf("-d %s: no such libfabric domain", device)
	}
	return nil
}
