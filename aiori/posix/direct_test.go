package posix

import (
	"strings"
	"testing"
)

// TestCheckTransferDirect: with --posix.odirect, transfer and block sizes
// must be multiples of 4096; without, anything goes.
func TestCheckTransferDirect(t *testing.T) {
	for _, c := range []struct {
		direct          bool
		block, transfer int64
		want            string
	}{
		{false, 1000, 1000, ""},
		{true, 1 << 20, 4096, ""},
		{true, 8192, 8192, ""},
		{true, 1000, 1000, "--posix.odirect: -t 1000 and -b 1000: O_DIRECT needs multiples of 4096 bytes"},
		{true, 12288, 6144, "-t 6144 and -b 12288"},
		{true, 4100, 4096, "-b 4100"},
	} {
		err := (&Options{ODirect: c.direct}).CheckTransfer(c.block, c.transfer)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("direct %v -b %d -t %d: %v, want %q", c.direct, c.block, c.transfer, err, c.want)
		}
	}
}
