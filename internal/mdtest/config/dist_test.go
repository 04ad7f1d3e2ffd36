package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/distribution"
)

// TestParseDistFlags: --interval and --until-steady, their forms and
// defaults.
func TestParseDistFlags(t *testing.T) {
	t.Parallel()
	def, err := distribution.ParseSteady("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     string
		interval time.Duration
		steady   distribution.Steady
	}{
		{"-n 10", distribution.DefaultInterval, distribution.Steady{}},
		{"-n 10 --interval 250ms", 250 * time.Millisecond, distribution.Steady{}},
		{"-n 10 --interval=1h", time.Hour, distribution.Steady{}},
		{"-n 10 --until-steady", distribution.DefaultInterval, def},
		{"-n 10 --until-steady -F", distribution.DefaultInterval, def}, // bare: the next word is not its value
		{"-n 10 --until-steady=5s,2%", distribution.DefaultInterval, distribution.Steady{Window: 5 * time.Second, Tolerance: 0.02}},
		{"-n 10 --until-steady=2s,10 --interval 100ms", 100 * time.Millisecond, distribution.Steady{Window: 2 * time.Second, Tolerance: 0.1}},
		{"-I 10 -z 1 -C -W 5 --until-steady", distribution.DefaultInterval, def}, // with -W: whichever comes first
	} {
		o, err := Parse(strings.Fields(tc.args), testRegistry(t))
		if err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		if o.Interval != tc.interval || o.Steady != tc.steady {
			t.Errorf("%s: interval %v, steady %+v; want %v, %+v", tc.args, o.Interval, o.Steady, tc.interval, tc.steady)
		}
	}
}

// TestParseDistErrors: bad values and combinations, one line naming the
// flag and what it accepts.
func TestParseDistErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args string
		want []string
	}{
		{"-n 10 --interval 0s", []string{"--interval", "0s", "[1ms, 1h]"}},
		{"-n 10 --interval 500us", []string{"--interval", "[1ms, 1h]"}},
		{"-n 10 --interval 2h", []string{"--interval", "2h0m0s", "[1ms, 1h]"}},
		{"-n 10 --interval 5", []string{"--interval", `"5" is not a duration`}},
		{"-n 10 --interval", []string{"--interval: needs a value"}},
		{"-n 10 --until-steady=10s", []string{"--until-steady", "WINDOW,TOLERANCE"}},
		{"-n 10 --until-steady=0s,5%", []string{"--until-steady", "window", "(0, 24h]"}},
		{"-n 10 --until-steady=10s,100%", []string{"--until-steady", "tolerance", "(0, 100)"}},
		{"-n 10 --until-steady=10s,x", []string{"--until-steady", "tolerance"}},
		{"-n 10 --until-steady=1s,5%", []string{"--until-steady window 1s must span at least 2 intervals of --interval 1s"}},
		{"-n 10 --interval 1ms --until-steady=1h,5%", []string{"--until-steady window 1h0m0s spans", "at most 4096"}},
		{"-n 10 -T -r --until-steady", []string{"--until-steady=10s,7.5% needs the create phase", "-C"}},
		{"--until-steady", []string{"--until-steady=10s,7.5% needs items to create (-n or -I)"}},
		{"-n 10 -c --until-steady", []string{"-c cannot be combined with --until-steady=10s,7.5%"}},
		{"-I 10 -z 1 -b 2 --until-steady", []string{"--until-steady=10s,7.5% needs -b <= 1 (got -b 2)"}},
	} {
		o, err := Parse(strings.Fields(tc.args), testRegistry(t))
		if o != nil {
			t.Errorf("Parse(%s) returned options with its error", tc.args)
		}
		checkError(t, "Parse("+tc.args+")", err, tc.want...)
	}
}
