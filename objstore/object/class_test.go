package object

import (
	"errors"
	"testing"
)

func TestParseClass(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Class
		ok   bool
	}{
		{"S1", S1, true}, {"s2", S2, true}, {"S4", S4, true}, {"S1024", 1024, true},
		{"SX", SX, true}, {"sx", SX, true},
		{"", 0, false}, {"S0", 0, false}, {"S3", 0, false}, {"S2048", 0, false},
		{"RP_2G1", 0, false}, {"X", 0, false}, {"S-1", 0, false},
	} {
		got, err := ParseClass(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseClass(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseClass(%q) error %v does not wrap ErrInvalid", tc.in, err)
		}
		if back, err := ParseClass(got.String()); tc.ok && (err != nil || back != got) {
			t.Errorf("ParseClass(%v.String()) = %v, %v", got, back, err)
		}
	}
}

func TestPlacement(t *testing.T) {
	for _, tc := range []struct {
		class    Class
		ntargets int
		width    int
	}{
		{S1, 4, 1}, {S2, 4, 2}, {S4, 4, 4}, {SX, 4, 4}, {SX, 1, 1}, {S4, 2, 2}, {S2, 3, 2},
	} {
		for seq := uint64(0); seq < 50; seq++ {
			oid := NewOID(tc.class, seq)
			if oid.Class() != tc.class {
				t.Fatalf("NewOID(%v, %d).Class() = %v", tc.class, seq, oid.Class())
			}
			seen := map[int]bool{}
			first := Placement(oid, 0, tc.ntargets)
			for k := int64(0); k < 16; k++ {
				tg := Placement(oid, k, tc.ntargets)
				if tg < 0 || tg >= tc.ntargets {
					t.Fatalf("Placement(%v, %d, %d) = %d, out of range", oid, k, tc.ntargets, tg)
				}
				if want := (first + int(k)%tc.width) % tc.ntargets; tg != want {
					t.Fatalf("Placement(%v, %d, %d) = %d, want %d", oid, k, tc.ntargets, tg, want)
				}
				seen[tg] = true
			}
			if len(seen) != tc.width {
				t.Fatalf("%v over %d targets used %d targets, want %d", oid, tc.ntargets, len(seen), tc.width)
			}
		}
	}
}

func TestOIDString(t *testing.T) {
	oid := NewOID(S2, 0xabc)
	got, err := ParseOID(oid.String())
	if err != nil || got != oid {
		t.Fatalf("ParseOID(%q) = %v, %v", oid.String(), got, err)
	}
	if _, err := ParseOID("zz"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ParseOID(zz) = %v", err)
	}
}

func TestContProps(t *testing.T) {
	p := ContProps{}.WithDefaults()
	if p != DefaultProps() || p.Check() != nil {
		t.Fatalf("defaults %+v, check %v", p, p.Check())
	}
	for _, n := range []int64{1, 4095, 4097, 1<<30 + 4096, -4096} {
		if CheckChunkSize(n) == nil {
			t.Errorf("CheckChunkSize(%d) passed", n)
		}
	}
	for _, n := range []int64{4096, 65536, 1 << 20, 1 << 30} {
		if err := CheckChunkSize(n); err != nil {
			t.Errorf("CheckChunkSize(%d) = %v", n, err)
		}
	}
}
