package run

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// HostnameEnv names the environment variable that, when set, replaces the
// host name this rank reports (tests and simulation only).
const HostnameEnv = "HPCBENCH_HOSTNAME"

// maxHostname bounds a host name in the gathering: DNS names are at most
// 253 bytes.
const maxHostname = 255

// hostSlot is one rank's block of the host gathering: its CPUs (4 bytes),
// the name's length (1 byte) and the name.
const hostSlot = 4 + 1 + maxHostname

// Hostname returns the host name this rank reports: HPCBENCH_HOSTNAME if
// getenv has it, else the kernel's.
func Hostname(getenv func(string) (string, bool)) (string, error) {
	getenv = orLookupEnv(getenv)
	if h, ok := getenv(HostnameEnv); ok && h != "" {
		return h, nil
	}
	return os.Hostname()
}

// hostInfo is what one rank tells the others about its host.
type hostInfo struct {
	name string
	cpus int
}

// gatherer is the part of collectives.Comm the host gathering needs.
type gatherer interface {
	Rank() int
	Size() int
	Allgather(ctx context.Context, send, recv []byte) error
}

// gatherHosts gives every rank every rank's host, in rank order.
func gatherHosts(ctx context.Context, c gatherer, own hostInfo) ([]hostInfo, error) {
	if len(own.name) > maxHostname {
		return nil, fmt.Errorf("host name %.20q...: %d bytes, at most %d", own.name, len(own.name), maxHostname)
	}
	send := make([]byte, hostSlot)
	binary.BigEndian.PutUint32(send, uint32(own.cpus))
	send[4] = byte(len(own.name))
	copy(send[5:], own.name)
	recv := make([]byte, hostSlot*c.Size())
	if err := c.Allgather(ctx, send, recv); err != nil {
		return nil, fmt.Errorf("gather host names: %w", err)
	}
	out := make([]hostInfo, c.Size())
	for r := range out {
		b := recv[r*hostSlot : (r+1)*hostSlot]
		n := int(b[4])
		out[r] = hostInfo{name: string(b[5 : 5+n]), cpus: int(binary.BigEndian.Uint32(b))}
	}
	return out, nil
}

// Machine is IOR's "Machine": uname's sysname and nodename.
func Machine() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Nodename[:])
}

// Platform is IOR's JSON "platform": nodename(sysname).
func Platform() string {
	sys, node, ok := strings.Cut(Machine(), " ")
	if !ok {
		return "unknown"
	}
	return node + "(" + sys + ")"
}
