package transport

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/fabric/ucx"
)

// TestRegistryUCX: ucx is a provider, auto's registry never has it,
// and --fabric ucx's does (last), with a UCX listener; without libucp
// it is refused naming the Debian package.
func TestRegistryUCX(t *testing.T) {
	if !slices.Contains(Providers(), "ucx") {
		t.Errorf("Providers() = %v: no ucx", Providers())
	}
	ip := net.ParseIP("127.0.0.1")
	for _, name := range []string{"auto", "tcp", "shm"} {
		reg, err := Registry(ip, name)
		if err != nil {
			t.Fatalf("Registry(%s): %v", name, err)
		}
		if slices.Contains(reg.Names(), "ucx") {
			t.Errorf("Registry(%s) = %v: ucx only when asked for", name, reg.Names())
		}
	}
	reg, err := Registry(ip, "ucx")
	if errors.Is(err, ucx.ErrNoLibrary) {
		if !strings.Contains(err.Error(), "libucx0") {
			t.Errorf("Registry(ucx) without UCX: %v; want the Debian package named", err)
		}
		t.Skipf("UCX is not installed (Debian: apt-get install libucx0): %v", err)
	}
	if err != nil {
		t.Fatalf("Registry(ucx): %v", err)
	}
	tr, err := reg.Lookup("ucx")
	if err != nil {
		t.Fatalf("Registry(ucx) = %v: %v", reg.Names(), err)
	}
	ln, err := tr.Listen(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if a := ln.Addr(); !strings.HasPrefix(a, "ucx://") || !tr.Reachable(a) {
		t.Errorf("ucx listens at %q", a)
	}
}

// TestCheckProviderUCX: -p ucx is accepted wherever libucp loads, and -d
// (UCX_NET_DEVICES) only with devices UCX lists here (lo on every Linux
// host), "all", or a list of them.
func TestCheckProviderUCX(t *testing.T) {
	if avail := ucx.Available(); avail != nil {
		if err := CheckProvider("ucx", ""); err == nil || !strings.HasPrefix(err.Error(), "-p ucx: ") {
			t.Errorf("CheckProvider(ucx) without UCX = %v; want -p ucx refused", err)
		}
		t.Skipf("UCX is not installed (Debian: apt-get install libucx0): %v", avail)
	}
	for _, tc := range []struct {
		device string
		ok     bool
	}{{"", true}, {"lo", true}, {"all", true}, {"lo,all", true}, {"nosuchdev", false}, {"lo,nosuchdev", false}} {
		err := CheckProvider("ucx", tc.device)
		if (err == nil) != tc.ok {
			t.Errorf("CheckProvider(ucx, %q) = %v; want ok %v", tc.device, err, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "-d "+tc.device+": ") {
			t.Errorf("CheckProvider(ucx, %q) = %q: want it to name -d", tc.device, err)
		}
	}
}
