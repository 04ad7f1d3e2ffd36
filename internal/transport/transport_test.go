package transport

import (
	"net"
	"strings"
	"testing"
)

// TestRegistryPublishes: with an address, the registry's tcp listens on
// it and publishes it.
func TestRegistryPublishes(t *testing.T) {
	reg, err := Registry(net.ParseIP("127.0.0.1"))
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
		t.Errorf("tcp publishes %s, want 127.0.0.1", a)
	}
}
