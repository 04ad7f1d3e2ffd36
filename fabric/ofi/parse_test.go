package ofi

import (
	"bytes"
	"errors"
	"testing"
)

func TestAddress(t *testing.T) {
	a := address{provider: "verbs;ofi_rxm", host: "node1", name: []byte{1, 2, 0xfe}, ln: 7}
	s := a.String()
	if s != "ofi:verbs;ofi_rxm://node1/0102fe/7" {
		t.Errorf("String() = %q", s)
	}
	got, err := parseAddress(s)
	if err != nil || got.provider != a.provider || got.host != a.host || !bytes.Equal(got.name, a.name) || got.ln != a.ln {
		t.Errorf("parseAddress(%q) = %+v, %v; want %+v", s, got, err, a)
	}
	for _, bad := range []string{
		"", "tcp://1.2.3.4:5", "ofi://tcp/00/1", "ofi:tcp://h/zz/1", "ofi:tcp://h//1", "ofi:tcp://h/00/0",
		"ofi:tcp://h/00/x", "ofi:tcp://h/00", "ofi:tcp:///00/1", "ofi:t cp://h/00/1", "ofi:a;b;c;d://h/00/1",
		"ofi:tcp://h/00/1/2", "ofi:tcp://h/00/4294967296",
	} {
		if _, err := parseAddress(bad); !errors.Is(err, errBadAddr) {
			t.Errorf("parseAddress(%q) = %v; want errBadAddr", bad, err)
		}
	}
}

// TestAddressMsg: a MSG listener's card ends in "msg" and parses back so;
// the two kinds never parse as each other.
func TestAddressMsg(t *testing.T) {
	a := address{provider: "tcp", host: "node1", name: []byte{2, 0, 0x9c, 0x40, 127, 0, 0, 1}, msg: true}
	s := a.String()
	if s != "ofi:tcp://node1/02009c407f000001/msg" {
		t.Errorf("String() = %q", s)
	}
	got, err := parseAddress(s)
	if err != nil || !got.msg || got.ln != 0 || !bytes.Equal(got.name, a.name) {
		t.Errorf("parseAddress(%q) = %+v, %v; want %+v", s, got, err, a)
	}
	rdm, err := parseAddress("ofi:tcp://node1/02009c407f000001/1")
	if err != nil || rdm.msg {
		t.Errorf("an RDM card parsed as %+v, %v", rdm, err)
	}
	for _, bad := range []string{"ofi:tcp://node1/02/MSG", "ofi:tcp://node1//msg", "ofi:tcp://node1/02/msg/1"} {
		if _, err := parseAddress(bad); !errors.Is(err, errBadAddr) {
			t.Errorf("parseAddress(%q) = %v; want errBadAddr", bad, err)
		}
	}
}

// TestMsgWire: the CQ data of a MSG connection's messages, the rendezvous
// header and the connection parameter round-trip, and what a peer may not
// send is refused.
func TestMsgWire(t *testing.T) {
	for _, tc := range []struct {
		kind uint64
		id   uint32
		low  uint32
	}{
		{msgKindData, 0, 0}, {msgKindData, 0, 1<<32 - 1}, {msgKindRdv, rdvIDs, 7},
		{msgKindCtl, 0, kindFin}, {msgKindBody, 12345, 0},
	} {
		kind, id, low := splitMsgData(msgData(tc.kind, tc.id, tc.low))
		if kind != tc.kind || id != tc.id || low != tc.low {
			t.Errorf("split(msgData(%x, %d, %d)) = %x, %d, %d", tc.kind, tc.id, tc.low, kind, id, low)
		}
	}
	for _, n := range []int{0, msgEager, maxDrain} {
		if got, err := parseRdvHeader(encodeRdvHeader(n)); err != nil || got != n {
			t.Errorf("parseRdvHeader(encode(%d)) = %d, %v", n, got, err)
		}
	}
	for _, bad := range [][]byte{nil, make([]byte, 7), make([]byte, 9), encodeRdvHeader(maxDrain + 1)} {
		if _, err := parseRdvHeader(bad); !errors.Is(err, errBadControl) {
			t.Errorf("parseRdvHeader(%x) = %v; want errBadControl", bad, err)
		}
	}
	for _, r := range []int{0, 1, 1<<31 - 1} {
		if got, err := parseRank(encodeRank(r)); err != nil || got != r {
			t.Errorf("parseRank(encode(%d)) = %d, %v", r, got, err)
		}
	}
	if got, err := parseRank(append(encodeRank(3), 0, 0, 0)); err != nil || got != 3 {
		t.Errorf("parseRank of a padded parameter = %d, %v; want 3", got, err)
	}
	for _, bad := range [][]byte{nil, make([]byte, 7), encodeRank(-1), encodeRank(1 << 31)} {
		if _, err := parseRank(bad); !errors.Is(err, errBadControl) {
			t.Errorf("parseRank(%x) = %v; want errBadControl", bad, err)
		}
	}
}

// FuzzParseMsgWire: a MSG connection's parsers of what a peer sends (the
// connection parameter, a rendezvous header) accept only what they can
// encode back, as the first bytes of the input.
func FuzzParseMsgWire(f *testing.F) {
	f.Add(encodeRank(5))
	f.Add(encodeRdvHeader(1 << 20))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := parseRank(b); err == nil && !bytes.Equal(encodeRank(r), b[:8]) {
			t.Fatalf("parameter %x parsed to rank %d", b, r)
		}
		if n, err := parseRdvHeader(b); err == nil && !bytes.Equal(encodeRdvHeader(n), b) {
			t.Fatalf("rendezvous header %x parsed to %d", b, n)
		}
	})
}

func TestParseProvider(t *testing.T) {
	for _, tc := range []struct {
		in       string
		prov     string
		ofi, bad bool
	}{
		{"tcp", "", false, false},
		{"ofi:tcp", "tcp", true, false},
		{"ofi:verbs;ofi_rxm", "verbs;ofi_rxm", true, false},
		{"ofi:", "", true, true},
		{"ofi:tcp/x", "", true, true},
		{"ofi:;", "", true, true},
	} {
		p, ok, err := ParseProvider(tc.in)
		if p != tc.prov || ok != tc.ofi || (err != nil) != tc.bad {
			t.Errorf("ParseProvider(%q) = %q, %v, %v; want %q, %v, error %v", tc.in, p, ok, err, tc.prov, tc.ofi, tc.bad)
		}
	}
}

func TestControlRoundTrip(t *testing.T) {
	h := hello{rank: 12345, id: 99, name: []byte("endpoint-name")}
	got, err := parseHello(h.encode())
	if err != nil || got.rank != h.rank || got.id != h.id || !bytes.Equal(got.name, h.name) {
		t.Errorf("parseHello(encode(%+v)) = %+v, %v", h, got, err)
	}
	w := welcome{id: 5, rank: 3}
	if gw, err := parseWelcome(w.encode()); err != nil || gw != w {
		t.Errorf("parseWelcome(encode(%+v)) = %+v, %v", w, gw, err)
	}
	n := closeNote{sent: 10, max: 1 << 20}
	if gn, err := parseClose(n.encode()); err != nil || gn != n {
		t.Errorf("parseClose(encode(%+v)) = %+v, %v", n, gn, err)
	}
	for _, bad := range [][]byte{nil, make([]byte, 13), hello{rank: 1, id: 0, name: []byte("x")}.encode(),
		hello{rank: -1, id: 1, name: []byte("x")}.encode(), hello{rank: 1, id: 1}.encode(),
		append(hello{rank: 1, id: 1, name: []byte("x")}.encode(), 0)} {
		if _, err := parseHello(bad); !errors.Is(err, errBadControl) {
			t.Errorf("parseHello(%x) = %v; want errBadControl", bad, err)
		}
	}
	if _, err := parseWelcome(welcome{id: 0, rank: 1}.encode()); !errors.Is(err, errBadControl) {
		t.Errorf("parseWelcome of id 0 = %v; want errBadControl", err)
	}
	m := cts{id: 9, key: rmaKey{mr: 1, base: 2, length: 3}.encode()}
	if got, err := parseCTS(m.encode()); err != nil || got.id != m.id || !bytes.Equal(got.key, m.key) {
		t.Errorf("parseCTS(encode(%+v)) = %+v, %v", m, got, err)
	}
	if got, err := parseCTS(cts{id: 9}.encode()); err != nil || got.key != nil {
		t.Errorf("parseCTS of a drop = %+v, %v; want no key", got, err)
	}
	for _, bad := range [][]byte{nil, make([]byte, 5), leID(rdvIDs + 1)} {
		if _, err := parseCTS(bad); !errors.Is(err, errBadControl) {
			t.Errorf("parseCTS(%x) = %v; want errBadControl", bad, err)
		}
		if _, err := parseFin(bad); !errors.Is(err, errBadControl) {
			t.Errorf("parseFin(%x) = %v; want errBadControl", bad, err)
		}
	}
	if _, err := parseClose(closeNote{max: maxDrain + 1}.encode()); !errors.Is(err, errBadControl) {
		t.Errorf("parseClose of a huge message = %v; want errBadControl", err)
	}
}

func TestKey(t *testing.T) {
	k := rmaKey{mr: 7, base: 0x7f0000001000, length: 4096}
	b := k.encode()
	if got, err := parseKey(b); err != nil || got != k {
		t.Errorf("parseKey(encode(%+v)) = %+v, %v", k, got, err)
	}
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 1
		if _, err := parseKey(bad); err == nil {
			t.Errorf("parseKey accepted a key with byte %d flipped", i)
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	f.Add("ofi:tcp://node1/0102fe/7")
	f.Add("ofi:verbs;ofi_rxm://h/00/1")
	f.Add("ofi:shm://h//")
	f.Add("ofi:tcp://h/02009c407f0000010000000000000000/msg")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAddress(s)
		if err != nil {
			return
		}
		b, err := parseAddress(a.String())
		if err != nil || b.provider != a.provider || b.host != a.host || !bytes.Equal(b.name, a.name) || b.ln != a.ln || b.msg != a.msg {
			t.Fatalf("%q parsed to %+v, whose String %q parses to %+v, %v", s, a, a.String(), b, err)
		}
	})
}

func FuzzParseControl(f *testing.F) {
	f.Add(hello{rank: 1, id: 2, name: []byte("abc")}.encode())
	f.Add(welcome{id: 1, rank: 2}.encode())
	f.Add(closeNote{sent: 1, max: 2}.encode())
	f.Add(cts{id: 3, key: rmaKey{mr: 1, base: 2, length: 3}.encode()}.encode())
	f.Add(leID(7))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := parseHello(b); err == nil {
			if !bytes.Equal(h.encode(), b) {
				t.Fatalf("hello %x parsed to %+v, which encodes to %x", b, h, h.encode())
			}
		}
		if w, err := parseWelcome(b); err == nil && !bytes.Equal(w.encode(), b) {
			t.Fatalf("welcome %x parsed to %+v", b, w)
		}
		if n, err := parseClose(b); err == nil && !bytes.Equal(n.encode(), b) {
			t.Fatalf("close %x parsed to %+v", b, n)
		}
		if k, err := parseKey(b); err == nil && !bytes.Equal(k.encode(), b) {
			t.Fatalf("key %x parsed to %+v", b, k)
		}
		if m, err := parseCTS(b); err == nil && !bytes.Equal(m.encode(), b) {
			t.Fatalf("CTS %x parsed to %+v", b, m)
		}
		if id, err := parseFin(b); err == nil && !bytes.Equal(leID(id), b) {
			t.Fatalf("FIN %x parsed to %d", b, id)
		}
	})
}

func FuzzParseProvider(f *testing.F) {
	f.Add("ofi:tcp")
	f.Add("ofi:verbs;ofi_rxm")
	f.Fuzz(func(t *testing.T, s string) {
		p, ok, err := ParseProvider(s)
		if ok && err == nil && "ofi:"+p != s {
			t.Fatalf("ParseProvider(%q) = %q", s, p)
		}
	})
}
