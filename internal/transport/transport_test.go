package transport

import (
	"strings"
	"testing"
)

// TestIface: HPCBENCH_IFACE unset gives nothing, an interface its
// address, a name this host lacks an error naming the variable; the
// registry's tcp then publishes that address.
func TestIface(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == "HPCBENCH_IFACE" && v != "" {
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
	if _, err := Registry(env("nosuch0")); err == nil {
		t.Error("Registry took an interface this host lacks")
	}
	reg, err := Registry(env("lo"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := reg.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tr.Listen(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if a := ln.Addr(); !strings.HasPrefix(a, "tcp://127.0.0.1:") {
		t.Errorf("tcp publishes %s, want 127.0.0.1 (lo)", a)
	}
}
