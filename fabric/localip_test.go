package fabric

import (
	"strings"
	"testing"
)

// TestLocalIP: an interface gives its first address, an address of this
// host itself, anything else an error listing the interfaces.
func TestLocalIP(t *testing.T) {
	for _, c := range []struct {
		name, want, err string
	}{
		{"lo", "127.0.0.1", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"nosuch0", "", "no such interface or local address: have "},
		{"192.0.2.77", "", "no such interface or local address"}, // TEST-NET-1: no host has it
	} {
		ip, err := LocalIP(c.name)
		switch {
		case c.err == "" && (err != nil || ip.String() != c.want):
			t.Errorf("LocalIP(%q) = %v, %v; want %s", c.name, ip, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "lo")):
			t.Errorf("LocalIP(%q) = %v, %v; want an error with %q and the interfaces", c.name, ip, err, c.err)
		}
	}
}

// TestIface: HPCBENCH_IFACE unset gives nothing, an interface its
// address, a name this host lacks an error naming the variable.
func TestIface(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == IfaceEnv && v != "" {
				return v, true
			}
			return "", false
		}
	}
	if name, ip, err := Iface(env("")); name != "" || ip != nil || err != nil {
		t.Errorf("unset: %q, %v, %v", name, ip, err)
	}
	if name, ip, err := Iface(env("lo")); name != "lo" || ip.String() != "127.0.0.1" || err != nil {
		t.Errorf("lo: %q, %v, %v", name, ip, err)
	}
	if _, _, err := Iface(env("nosuch0")); err == nil || !strings.HasPrefix(err.Error(), "HPCBENCH_IFACE=nosuch0: no such interface or local address") {
		t.Errorf("nosuch0: %v", err)
	}
}
