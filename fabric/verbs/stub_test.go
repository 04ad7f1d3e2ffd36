//go:build !(verbs && linux && cgo)

package verbs

import (
	"errors"
	"testing"
)

func TestNotBuilt(t *testing.T) {
	const want = "fabric/verbs: built without -tags verbs: rebuild with go build -tags verbs ./cmd/hpcbench (needs libibverbs-dev)"
	if _, err := OpenDevices(); !errors.Is(err, ErrNotBuilt) || err.Error() != want {
		t.Errorf("OpenDevices = %v; want ErrNotBuilt, %q", err, want)
	}
	if _, err := Devices(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Devices = %v; want ErrNotBuilt", err)
	}
	tr, err := New(Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := tr.Listen(t.Context(), 0); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Listen = %v; want ErrNotBuilt", err)
	}
	if _, err := tr.Dial(t.Context(), 0, "verbs://127.0.0.1:1/mlx5_0:1"); err == nil {
		t.Error("Dial succeeded without a device")
	}
}
