package cliflag

import (
	"encoding/json"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/pattern"
)

func TestDataPacketType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]DataPacketType{
		"t": Timestamp, "timestamp": Timestamp, "T": Timestamp, "o": Offset, "offset": Offset, "Offset": Offset,
		"i": Incompressible, "incompressible": Incompressible, "INCOMPRESSIBLE": Incompressible,
		"r": Random, "random": Random, "RANDOM": Random,
	} {
		got, err := ParseDataPacketType(in)
		if err != nil || got != want {
			t.Errorf("ParseDataPacketType(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseDataPacketType(got.String()); err != nil || back != got {
			t.Errorf("%v does not round-trip: %v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"", "x", "inc", "tim", "timestamps", "offset ", "g"} {
		if _, err := ParseDataPacketType(bad); err == nil {
			t.Errorf("ParseDataPacketType(%q) succeeded", bad)
		}
	}
	_, err := ParseDataPacketType("x")
	if want := `unknown data packet type "x": want timestamp, offset, incompressible or random (or t, o, i, r)`; err == nil || err.Error() != want {
		t.Errorf("ParseDataPacketType(x) error %v, want %q", err, want)
	}
	b, err := json.Marshal(struct{ T DataPacketType }{Offset})
	if err != nil || string(b) != `{"T":"offset"}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
	var back struct{ T DataPacketType }
	if err := json.Unmarshal([]byte(`{"T":"random"}`), &back); err != nil || back.T != Random {
		t.Errorf("JSON back = %v, %v", back.T, err)
	}
	if err := json.Unmarshal([]byte(`{"T":"nope"}`), &back); err == nil {
		t.Error("unmarshal of an unknown type succeeded")
	}
	if _, err := json.Marshal(DataPacketType(9)); err == nil {
		t.Error("marshalled an unknown type")
	}
	if _, err := DataPacketType(-1).MarshalText(); err == nil || err.Error() != "marshal data packet type: unknown type -1" {
		t.Errorf("MarshalText of -1: %v", err)
	}
	if got := DataPacketType(7).String(); got != "DataPacketType(7)" {
		t.Errorf("String of an unknown type = %q", got)
	}
}

// TestDataPacketTypePattern checks that the types are pattern's: the same
// values under the same names.
func TestDataPacketTypePattern(t *testing.T) {
	t.Parallel()
	for _, p := range []pattern.Type{pattern.Timestamp, pattern.Offset, pattern.Incompressible, pattern.Random} {
		d, err := ParseDataPacketType(p.String())
		if err != nil || pattern.Type(d) != p || d.String() != p.String() {
			t.Errorf("%v: ParseDataPacketType gives %v (%v), %v", p, d, pattern.Type(d), err)
		}
	}
	if Timestamp != 0 {
		t.Errorf("Timestamp = %d, want the zero value", Timestamp)
	}
}
