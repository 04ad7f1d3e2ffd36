package ucx

import (
	"bytes"
	"strings"
	"testing"
)

func TestAddrRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		id   uint32
		addr []byte
	}{{1, []byte{0}}, {maxID, bytes.Repeat([]byte{0xab}, 215)}, {77, []byte("worker")}} {
		s := formatAddr(tc.id, tc.addr)
		id, addr, err := parseAddr(s)
		if err != nil || id != tc.id || !bytes.Equal(addr, tc.addr) {
			t.Errorf("parseAddr(formatAddr(%d, %x)) = %d, %x, %v", tc.id, tc.addr, id, addr, err)
		}
	}
}

func TestParseAddrRefuses(t *testing.T) {
	for _, tc := range []struct{ name, addr, want string }{
		{"scheme", "tcp://0000000100", "want ucx://HEX"},
		{"hex", "ucx://zz", "invalid byte"},
		{"short", "ucx://00000001", "want an endpoint id and a worker address"},
		{"id zero", "ucx://0000000001", "out of range"},
		{"id high", "ucx://8000000001", "out of range"},
		{"long", "ucx://00000001" + strings.Repeat("00", maxWorkerAddr+1), "want an endpoint id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := parseAddr(tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parseAddr(%q) = %v; want an error containing %q", tc.addr, err, tc.want)
			}
		})
	}
}

func TestHelloRoundTrip(t *testing.T) {
	for _, h := range []hello{
		{Rank: 0, ID: 1, Pid: 42, Host: hostID(), WorkerAddr: []byte("address")},
		{Rank: 1000, ID: maxID, Pid: 1<<32 - 1},
	} {
		got, err := parseHello(h.encode())
		if err != nil {
			t.Fatalf("parseHello(%+v): %v", h, err)
		}
		if got.Rank != h.Rank || got.ID != h.ID || got.Pid != h.Pid || got.Host != h.Host || !bytes.Equal(got.WorkerAddr, h.WorkerAddr) {
			t.Errorf("parseHello(encode(%+v)) = %+v", h, got)
		}
	}
}

func TestParseHelloRefuses(t *testing.T) {
	good := hello{Rank: 3, ID: 9, WorkerAddr: []byte("abc")}.encode()
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"magic", append([]byte("XXXX"), good[4:]...)},
		{"short address", good[:len(good)-1]},
		{"long address", append(bytes.Clone(good), 0)},
		{"id zero", hello{Rank: 3, ID: 0}.encode()},
		{"rank", hello{Rank: 1 << 31, ID: 1}.encode()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseHello(tc.b); err == nil {
				t.Errorf("parseHello(%x) succeeded", tc.b)
			}
		})
	}
}

// FuzzParseAddr: a peer's business card never panics the parser, and what
// it accepts formats back to the same card.
func FuzzParseAddr(f *testing.F) {
	f.Add(formatAddr(1, []byte("worker")))
	f.Add("ucx://")
	f.Add("ucx://0000000000")
	f.Fuzz(func(t *testing.T, s string) {
		id, addr, err := parseAddr(s)
		if err != nil {
			return
		}
		if got := formatAddr(id, addr); !strings.EqualFold(got, s) {
			t.Errorf("formatAddr(parseAddr(%q)) = %q", s, got)
		}
	})
}

// FuzzParseHello: a peer's handshake message never panics the parser, and
// what it accepts encodes back to the same bytes.
func FuzzParseHello(f *testing.F) {
	f.Add(hello{Rank: 1, ID: 2, Pid: 3, WorkerAddr: []byte("addr")}.encode())
	f.Add(hello{ID: 1}.encode())
	f.Add([]byte("HBU1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHello(b)
		if err != nil {
			return
		}
		if got := h.encode(); !bytes.Equal(got, b) {
			t.Errorf("encode(parseHello(%x)) = %x", b, got)
		}
	})
}
