package transport

import (
	"fmt"
	"net"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/shm"
	"github.com/hpcbench/hpcbench/fabric/tcp"
)

// Engine returns the transports an engine listens on and its clients
// dial with: shm, then tcp on listen (HOST:PORT; this host's address and
// a free port when empty).
func Engine(listen string) ([]fabric.Transport, error) {
	s, err := SHM()
	if err != nil {
		return nil, err
	}
	t, err := TCP(listen)
	if err != nil {
		return nil, err
	}
	return []fabric.Transport{s, t}, nil
}

// Arena is a transport that also hands out buffers from the memory it
// shares with its peers (fabric/shm's arena): array data in such a buffer
// moves with the fewest copies.
type Arena interface {
	fabric.Transport
	fabric.Allocator
}

// SHM returns the transport between the processes of one host: fabric/shm
// with its default options.
func SHM() (Arena, error) {
	s, err := shm.New(shm.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("engine: shm: %w", err)
	}
	return s, nil
}

// TCP returns the transport across hosts: fabric/tcp listening on listen
// (HOST:PORT; when empty, fabric.IfaceEnv's address if it is set, else
// this host's address, and a free port), publishing the host listen names
// unless it is a wildcard.
func TCP(listen string) (fabric.Transport, error) {
	if listen == "" {
		// The interface the job's ranks publish, for its engines too.
		_, ip, err := fabric.Iface(nil)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		if ip != nil {
			listen = net.JoinHostPort(ip.String(), "0")
		}
	}
	to := tcp.Options{Listen: listen}
	if listen != "" {
		host, _, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("engine: --listen %q: want HOST:PORT: %w", listen, err)
		}
		if host != "" && host != "0.0.0.0" && host != "::" {
			to.Publish = host
		}
	}
	t, err := tcp.New(to)
	if err != nil {
		return nil, fmt.Errorf("engine: tcp: %w", err)
	}
	return t, nil
}
