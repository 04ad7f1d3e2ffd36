// Package transport is the one place that decides which concrete fabric
// transport a run uses: the registry of every transport this build offers
// (shared memory, RDMA verbs when built and present, TCP), the provider a
// fabric test names with -p and its device (-d), and the refusal of a name
// or device the build or host lacks. The benchmarks, the bootstrap and the
// object store's engines take fabric's interfaces; this package makes them.
package transport

import (
	"fmt"
	"net"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/ofi"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
	"github.com/hpcbench/hpcbench/fabric/ucx"
	"github.com/hpcbench/hpcbench/fabric/verbs"
	"github.com/hpcbench/hpcbench/internal/job"
)

// Providers are the providers -p takes, in the order fabric info lists
// them; "ofi" stands for every ofi:PROVIDER (libfabric's providers).
func Providers() []string { return []string{"tcp", "shm", "verbs", ucx.Name, "ofi"} }

// Registry is the registry of fabric transports this build offers,
// preferred first: shared memory between ranks of one host, then RDMA
// verbs when the build has them and the host an RDMA device, then TCP
// anywhere. The transports that listen on the network (tcp, verbs' side
// channel) listen on and publish ip when it is not nil (fabric.Iface's).
// The transports auto never takes are opened only when one of named (
// --fabric's choice) asks for it: a libfabric provider ("ofi:tcp") comes
// first, ucx (a UCX context and worker per rank) last.
func Registry(ip net.IP, named ...string) (fabric.Registry, error) {
	var first, last fabric.Registry
	for _, name := range named {
		if name == ucx.Name {
			if err := ucx.Available(); err != nil {
				return nil, fmt.Errorf("--fabric ucx: %w", err)
			}
			u, err := ucx.New(ucx.Options{})
			if err != nil {
				return nil, fmt.Errorf("ucx: %w", err)
			}
			last = append(last, u)
			continue
		}
		p, isOFI, err := ofi.ParseProvider(name)
		if !isOFI {
			continue
		}
		if err != nil {
			return nil, err
		}
		t, err := ofi.New(ofi.Options{Provider: p})
		if err != nil {
			return nil, err
		}
		first = append(first, t)
	}
	base, err := baseRegistry(ip)
	if err != nil {
		return nil, err
	}
	return append(append(first, base...), last...), nil
}

// baseRegistry is Registry without libfabric.
func baseRegistry(ip net.IP) (fabric.Registry, error) {
	s, err := shm.New(shm.DefaultOptions())
	if err != nil {
		return nil, err
	}
	to := tcp.Options{}
	if ip != nil {
		to.Listen, to.Publish = net.JoinHostPort(ip.String(), "0"), ip.String()
	}
	t, err := tcp.New(to)
	if err != nil {
		return nil, err
	}
	reg := fabric.Registry{s}
	if devs, err := verbs.Devices(); err == nil && len(devs) > 0 {
		vo := verbs.DefaultOptions()
		if ip != nil {
			vo.Listen, vo.Publish = net.JoinHostPort(ip.String(), "0"), ip.String()
		}
		v, err := verbs.New(vo)
		if err != nil {
			return nil, err
		}
		reg = append(reg, v)
	}
	return append(reg, t), nil
}

// Check refuses a --fabric (flag) that names a transport the
// registry lacks, saying why when it is verbs (the build, the host).
func Check(flag, name string, reg fabric.Registry) error {
	if name == job.FabricAuto {
		return nil
	}
	if _, err := reg.Lookup(name); err == nil {
		return nil
	}
	if name == verbs.Name {
		if _, err := verbs.Devices(); err != nil {
			return fmt.Errorf("%s verbs: %w", flag, err)
		}
	}
	return fmt.Errorf("%s %q: want auto, ofi:PROVIDER or one of %s", flag, name, strings.Join(reg.Names(), ", "))
}

// CheckProvider refuses a provider this build does not have, or a device
// the provider cannot use, before any work.
func CheckProvider(provider, device string) error {
	if p, isOFI, err := ofi.ParseProvider(provider); isOFI {
		if err != nil {
			return fmt.Errorf("-p %w", err)
		}
		return checkOFI(p)
	}
	switch provider {
	case "tcp":
		if device != "" {
			_, err := DeviceIP(device)
			return err
		}
		return nil
	case "shm":
		if device != "" {
			return fmt.Errorf("-d %s: shm has no devices (its processes share this host's memory)", device)
		}
		return nil
	case "verbs":
		return checkVerbsDevice(device)
	case ucx.Name:
		if err := ucx.Available(); err != nil {
			return fmt.Errorf("-p ucx: %w", err)
		}
		if device != "" {
			return ucx.CheckDevices(device)
		}
		return nil
	}
	return fmt.Errorf("-p %s: no such provider: want one of tcp, shm, verbs, ucx or ofi:PROVIDER (ofi:tcp, ofi:shm, ofi:udp, ofi:verbs;ofi_rxm)", provider)
}

// checkOFI refuses ofi:PROVIDER where libfabric is not installed, or has
// no such provider, in one line.
func checkOFI(provider string) error {
	if _, err := ofi.Version(); err != nil {
		return fmt.Errorf("-p ofi:%s: %w", provider, err)
	}
	infos, err := ofi.Infos(provider)
	if err != nil || len(infos) == 0 {
		return fmt.Errorf("-p ofi:%s: libfabric has no provider %q here (fabric info -p ofi lists those it has)", provider, provider)
	}
	return nil
}

// checkVerbsDevice refuses -p verbs in a build without it, on a host
// without RDMA devices, or with a -d that names none of them.
func checkVerbsDevice(device string) error {
	devs, err := verbs.Devices()
	if err != nil {
		return fmt.Errorf("-p verbs: %w", err)
	}
	if device == "" {
		return nil
	}
	var names []string
	for _, d := range devs {
		if d.Name == device {
			return nil
		}
		names = append(names, d.Name)
	}
	return fmt.Errorf("-d %s: no such RDMA device: have %s", device, strings.Join(names, ", "))
}

// DeviceIP is the local IPv4 (or IPv6) address -d names for tcp: an
// interface's first address, or one of this host's addresses.
func DeviceIP(device string) (net.IP, error) {
	ip, err := fabric.LocalIP(device)
	if err != nil {
		return nil, fmt.Errorf("-d %s: %w", device, err)
	}
	return ip, nil
}

// Options are a fabric test's choice of transport: -p, -d and verbs'
// own options.
type Options struct {
	Provider string // tcp, shm, verbs, ucx or ofi:PROVIDER
	Device   string // tcp: an interface or local address; verbs: the RDMA device; ucx: UCX_NET_DEVICES
	GID      int    // verbs: the GID index, verbs.AutoGID for the transport's choice
	Event    bool   // verbs: sleep in the completion channel
	Inline   int    // verbs: the largest inline send, -1 for its default
	Endpoint string // ofi: the endpoint type, rdm ("" for it) or msg
}

// Open opens the transport o names. local is the address of a test's
// control connection (nil when launched), which a tcp or verbs listener
// publishes unless -d names another.
func Open(o Options, local net.IP) (fabric.Transport, error) {
	var (
		tr  fabric.Transport
		err error
	)
	if p, isOFI, perr := ofi.ParseProvider(o.Provider); isOFI {
		if perr != nil {
			return nil, perr
		}
		t, err := ofi.New(ofi.Options{Provider: p, Domain: o.Device, Endpoint: o.Endpoint})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Provider, err)
		}
		return t, nil
	}
	switch o.Provider {
	case "tcp":
		ip := local
		if ip == nil && o.Device == "" {
			if _, ip, err = fabric.Iface(nil); err != nil {
				return nil, err
			}
		}
		if o.Device != "" {
			if ip, err = DeviceIP(o.Device); err != nil {
				return nil, fmt.Errorf("%s: %w", o.Provider, err)
			}
		}
		to := tcp.Options{}
		if ip != nil {
			to.Listen = net.JoinHostPort(ip.String(), "0")
			to.Publish = ip.String()
		}
		tr, err = tcp.New(to)
	case "shm":
		tr, err = shm.New(shm.DefaultOptions())
	case "verbs":
		vo := verbs.DefaultOptions()
		vo.Device, vo.GIDIndex, vo.EventMode = o.Device, o.GID, o.Event
		if o.Inline >= 0 {
			vo.Inline = o.Inline
		}
		if local != nil {
			vo.Listen, vo.Publish = net.JoinHostPort(local.String(), "0"), local.String()
		}
		tr, err = verbs.New(vo)
	case ucx.Name:
		// UCX_TLS and the other UCX_* variables apply as UCX reads them;
		// -d sets UCX_NET_DEVICES over the environment's.
		tr, err = ucx.New(ucx.Options{NetDevices: o.Device})
	default:
		err = CheckProvider(o.Provider, o.Device)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Provider, err)
	}
	return tr, nil
}
