package config

import (
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestCheckMemory: -t (and --randomPrefill) against the host's memory for
// the ranks on it, refused in one line naming -t; -t's own bound is
// Validate's (TestValidate's -t rows), not the memory check's.
func TestCheckMemory(t *testing.T) {
	host := hostmem.HostMemory{Bytes: 23 * units.GiB, Source: "MemAvailable"}
	for _, c := range []struct {
		t, prefill int64
		ranks      int
		want       string // "" when it fits
	}{
		{64 * units.GiB, 0, 1, "-t 64g: needs 64 GiB of buffer per rank, this host has 23 GiB available (MemAvailable)"},
		{1 * units.GiB, 0, 32, "-t 1g: needs 1 GiB of buffer per rank, 32 GiB for the 32 ranks on this host"},
		{1 * units.GiB, 1 * units.GiB, 16, "-t 1g --randomPrefill 1g: needs 2 GiB of buffer per rank"},
		{4 * units.GiB, 0, 1, ""}, // fits; Validate refuses it
		{MaxTransferSize, 0, 1, ""},
		{1 * units.GiB, 0, 16, ""},
	} {
		o := DefaultOptions()
		o.TransferSize, o.RandomPrefill = c.t, c.prefill
		err := o.CheckMemory(c.ranks, host)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("-t %d × %d ranks: %v, want it to fit", c.t, c.ranks, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("-t %d × %d ranks: %v, want %q", c.t, c.ranks, err, c.want)
		}
	}
}

// TestCheckMemoryCollective: -c counts three cb_buffer_size buffers a rank.
func TestCheckMemoryCollective(t *testing.T) {
	host := hostmem.HostMemory{Bytes: 1 * units.GiB, Source: "MemAvailable"}
	o := DefaultOptions()
	o.Collective = true
	if err := o.CheckMemory(8, host); err != nil { // 8 × (256 KiB + 48 MiB)
		t.Errorf("default hints, 8 ranks: %v", err)
	}
	o.Hints.BufferSize = 512 * units.MiB
	err := o.CheckMemory(1, host)
	if want := "-c with cb_buffer_size 512m (three such buffers a rank) and -t 256k: needs 1.5 GiB of buffer per rank"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("512m buffers: %v, want %q", err, want)
	}
	o.DryRun = true
	if err := o.CheckMemory(1, host); err != nil {
		t.Errorf("--dryRun allocates nothing: %v", err)
	}
}
