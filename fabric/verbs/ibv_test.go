//go:build verbs && linux && cgo

package verbs

import (
	"errors"
	"testing"
)

// TestConstantsMatchVerbsH checks every constant of enums.go against the
// value verbs.h gives it, so the binding's casts are right.
func TestConstantsMatchVerbsH(t *testing.T) {
	for _, c := range cConstants() {
		if c.goVal != c.cVal {
			t.Errorf("%s: Go has %d, verbs.h %d", c.name, c.goVal, c.cVal)
		}
	}
}

// TestStatusStringsMatchLibibverbs checks WCStatus.String against
// ibv_wc_status_str for every status and one past them.
func TestStatusStringsMatchLibibverbs(t *testing.T) {
	for s := WCStatus(0); s <= wcStatusStrEntries; s++ {
		if got, want := s.String(), cStatusStr(s); got != want {
			t.Errorf("status %d: %q; ibv_wc_status_str says %q", s, got, want)
		}
	}
}

// TestRealDevices opens this host's devices and describes them; on a host
// without any it skips, saying so in one line.
func TestRealDevices(t *testing.T) {
	devs, err := OpenDevices()
	if errors.Is(err, ErrNoDevice) {
		t.Skip(ErrNoDevice.Error())
	}
	if err != nil {
		t.Fatalf("OpenDevices: %v", err)
	}
	for _, d := range devs {
		if err := d.Close(); err != nil {
			t.Errorf("closing %s: %v", d.Name(), err)
		}
	}
	infos, err := Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	for _, in := range infos {
		t.Logf("%s: %d ports, firmware %s, max_qp %d", in.Name, len(in.Ports), in.FWVersion, in.MaxQP)
	}
}
