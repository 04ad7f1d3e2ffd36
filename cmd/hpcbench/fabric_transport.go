package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
	"github.com/hpcbench/hpcbench/fabric/verbs"
)

// fabricProviders are the providers -p takes, in the order info lists them.
var fabricProviders = []string{"tcp", "shm", "verbs"}

// checkProvider refuses a provider this build does not have, or a device
// the provider cannot use, before any work.
func checkProvider(provider, device string) error {
	switch provider {
	case "tcp":
		if device != "" {
			_, err := deviceIP(device)
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
	}
	return fmt.Errorf("-p %s: no such provider: want one of %s", provider, strings.Join(fabricProviders, ", "))
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

// deviceIP is the local IPv4 (or IPv6) address -d names for tcp: an
// interface's first address, or one of this host's addresses.
func deviceIP(device string) (net.IP, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("-d %s: list the network interfaces: %w", device, err)
	}
	var names []string
	for _, ifc := range ifaces {
		names = append(names, ifc.Name)
		addrs, _ := ifc.Addrs()
		var first net.IP
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if ipn.IP.String() == device {
				return ipn.IP, nil
			}
			if first == nil || (first.To4() == nil && ipn.IP.To4() != nil) {
				first = ipn.IP
			}
		}
		if ifc.Name == device {
			if first == nil {
				return nil, fmt.Errorf("-d %s: the interface has no IP address", device)
			}
			return first, nil
		}
	}
	return nil, fmt.Errorf("-d %s: no such interface or local address: have %s", device, strings.Join(names, ", "))
}

// transport opens the run's transport (once); local is the address of the
// control connection in server/client mode (nil when launched), which a
// tcp listener publishes unless -d names another.
func (fa *fabricArgs) transport(local net.IP) (fabric.Transport, error) {
	if fa.tr != nil {
		return fa.tr, nil
	}
	var err error
	switch fa.provider {
	case "tcp":
		ip := local
		if fa.device != "" {
			if ip, err = deviceIP(fa.device); err != nil {
				return nil, err
			}
		}
		o := tcp.Options{}
		if ip != nil {
			o.Listen = net.JoinHostPort(ip.String(), "0")
			o.Publish = ip.String()
		}
		fa.tr, err = tcp.New(o)
	case "shm":
		fa.tr, err = shm.New(shm.DefaultOptions())
	case "verbs":
		o := verbs.DefaultOptions()
		o.Device, o.GIDIndex, o.EventMode = fa.device, fa.gid, fa.eventMode
		if fa.inline >= 0 {
			o.Inline = fa.inline
		}
		if local != nil {
			o.Listen, o.Publish = net.JoinHostPort(local.String(), "0"), local.String()
		}
		fa.tr, err = verbs.New(o)
	default:
		err = checkProvider(fa.provider, fa.device)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fa.provider, err)
	}
	return fa.tr, nil
}

// alloc returns the transport's buffer allocator, if it has one.
func (fa *fabricArgs) alloc() (func(int) []byte, func([]byte)) {
	if a, ok := fa.tr.(fabric.Allocator); ok {
		return a.Alloc, a.Free
	}
	return nil, nil
}
