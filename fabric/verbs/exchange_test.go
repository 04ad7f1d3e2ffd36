package verbs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// sampleEndpoints are valid records: InfiniBand by LID and RoCE by GID.
var sampleEndpoints = []Endpoint{
	{Rank: 0, LID: 1, QPN: 0x11, PSN: 0xabcdef, MTU: MTU4096, Slots: 64, SlotSize: 8192, RKey: 0x1234, Addr: 0x7f0000001000, Len: 64 * 8192},
	{Rank: 1 << 20, QPN: 0xffffff, PSN: 0, MTU: MTU1024, Global: true,
		GID: GID{10: 0xff, 11: 0xff, 12: 10, 13: 0, 14: 0, 15: 7}, Slots: MinSlots, SlotSize: MinSlotSize},
}

func TestEndpointRoundTrip(t *testing.T) {
	for _, e := range sampleEndpoints {
		b := AppendEndpoint(nil, e)
		if len(b) != EndpointLen {
			t.Fatalf("AppendEndpoint(%+v) is %d bytes; want %d", e, len(b), EndpointLen)
		}
		got, err := ParseEndpoint(b)
		if err != nil {
			t.Fatalf("ParseEndpoint(AppendEndpoint(%+v)): %v", e, err)
		}
		if got != e {
			t.Fatalf("round trip: got %+v; want %+v", got, e)
		}
	}
}

func TestParseEndpointMalformed(t *testing.T) {
	good := AppendEndpoint(nil, sampleEndpoints[0])
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	for _, tc := range []struct {
		name    string
		b       []byte
		version bool
		want    string
	}{
		{"empty", nil, false, "0 bytes, want 72"},
		{"short", good[:71], false, "71 bytes, want 72"},
		{"long", append(bytes.Clone(good), 0), false, "73 bytes, want 72"},
		{"magic", edit(func(b []byte) { copy(b, "HPCB") }), false, `magic "HPCB", want "HPVE"`},
		{"version", edit(func(b []byte) { b[4] = 2 }), true, "peer's version 2, this process's 1"},
		{"flags", edit(func(b []byte) { b[7] = 0x80 }), false, "unknown flags 0x80"},
		{"reserved", edit(func(b []byte) { b[14] = 1 }), false, "reserved bytes are not zero"},
		{"reserved 2", edit(func(b []byte) { b[53] = 1 }), false, "reserved bytes are not zero"},
		{"rank", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 1<<31) }), false, "rank 2147483648"},
		{"mtu 0", edit(func(b []byte) { b[6] = 0 }), false, "MTU 0"},
		{"mtu 6", edit(func(b []byte) { b[6] = 6 }), false, "MTU 6"},
		{"qpn 0", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 0) }), false, "QP number 0x0"},
		{"qpn 25 bits", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 1<<24) }), false, "QP number 0x1000000"},
		{"psn", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[20:], 1<<24) }), false, "PSN 0x1000000"},
		{"no address", edit(func(b []byte) { binary.LittleEndian.PutUint16(b[12:], 0) }), false, "LID 0 without a GID"},
		{"global zero gid", edit(func(b []byte) { b[7] = flagGlobal }), false, "zero GID"},
		{"slots", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[40:], 3) }), false, "3 receive slots"},
		{"slot size", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[44:], 1<<25) }), false, "slot size 33554432"},
		{"wrapping region", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[64:], ^uint64(0)) }), false, "wraps around"},
	} {
		_, err := ParseEndpoint(tc.b)
		want := ErrEndpoint
		if tc.version {
			want = ErrEndpointVersion
		}
		if !errors.Is(err, want) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseEndpoint = %v; want %v containing %q", tc.name, err, want, tc.want)
		}
	}
}

// FuzzParseEndpoint checks that ParseEndpoint never panics and that every
// record it accepts encodes back to the same bytes.
func FuzzParseEndpoint(f *testing.F) {
	for _, e := range sampleEndpoints {
		f.Add(AppendEndpoint(nil, e))
	}
	f.Add([]byte("HPVE"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseEndpoint(b)
		if err != nil {
			if e != (Endpoint{}) {
				t.Fatalf("ParseEndpoint failed (%v) but returned %+v", err, e)
			}
			return
		}
		if again := AppendEndpoint(nil, e); !bytes.Equal(again, b) {
			t.Fatalf("ParseEndpoint(%x) = %+v, which encodes to %x", b, e, again)
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("ParseEndpoint accepted %+v, which Validate refuses: %v", e, err)
		}
	})
}
