package fabtest

import (
	"strings"
	"testing"
	"time"
)

// TestAllPairsOptionsValidate: each size or count out of its range is
// refused naming its flag; the defaults pass.
func TestAllPairsOptionsValidate(t *testing.T) {
	ok := AllPairsOptions{LatSize: 8, LatIters: 1000, BWSize: 1 << 20, BWIters: 256, Window: DefaultWindow, Warmup: DefaultWarmup, Timeout: time.Second}
	for _, c := range []struct {
		name string
		edit func(*AllPairsOptions)
		want string // "" when valid
	}{
		{"defaults", func(*AllPairsOptions) {}, ""},
		{"zero sizes", func(o *AllPairsOptions) { o.LatSize, o.BWSize = 0, 0 }, ""},
		{"lat size", func(o *AllPairsOptions) { o.LatSize = MaxSize + 1 }, "--lat-size"},
		{"bw size", func(o *AllPairsOptions) { o.BWSize = -1 }, "--bw-size -1: want a size of 0 to 1g"},
		{"iterations", func(o *AllPairsOptions) { o.LatIters = 0 }, "-I and --bw-iters must be 1 or more"},
		{"bw iterations", func(o *AllPairsOptions) { o.BWIters = 0 }, "-I and --bw-iters must be 1 or more"},
		{"window", func(o *AllPairsOptions) { o.Window = 0 }, "-W 1 or more"},
		{"warmup", func(o *AllPairsOptions) { o.Warmup = -1 }, "-w and --timeout not negative"},
		{"timeout", func(o *AllPairsOptions) { o.Timeout = -time.Second }, "-w and --timeout not negative"},
	} {
		o := ok
		c.edit(&o)
		err := o.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
