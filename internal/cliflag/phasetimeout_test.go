package cliflag

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePhaseTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0", 0, ""},
		{"0s", 0, ""},
		{"2s", 2 * time.Second, ""},
		{"100ms", 100 * time.Millisecond, ""},
		{"1000h", 1000 * time.Hour, ""},
		{"50ms", 0, "50ms: want 0 (off) or a duration in [100ms, 1000h]"},
		{"-1s", 0, "-1s: want 0 (off) or a duration in [100ms, 1000h]"},
		{"1001h", 0, "want 0 (off) or a duration in"},
		{"soon", 0, `"soon" is not a duration such as 30s or 2m`},
		{"30", 0, `"30" is not a duration`},
	} {
		got, err := ParsePhaseTimeout(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePhaseTimeout(%q): %v; want an error containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePhaseTimeout(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestSplitPhaseTimeout(t *testing.T) {
	for _, tc := range []struct {
		args, rest []string
		want       PhaseTimeout
		err        string
	}{
		{[]string{"-w", "-b", "1m"}, []string{"-w", "-b", "1m"}, PhaseTimeout{}, ""},
		{[]string{"-w", "--phase-timeout", "2s", "-r"}, []string{"-w", "-r"}, PhaseTimeout{2 * time.Second, true}, ""},
		{[]string{"--phase-timeout=0", "-r"}, []string{"-r"}, PhaseTimeout{0, true}, ""},
		{[]string{"-phase-timeout", "3s"}, []string{}, PhaseTimeout{3 * time.Second, true}, ""},
		{[]string{"-phase-timeout=1s", "--phase-timeout=4s"}, []string{}, PhaseTimeout{4 * time.Second, true}, ""},
		{[]string{"--", "--phase-timeout", "2s"}, []string{"--", "--phase-timeout", "2s"}, PhaseTimeout{}, ""},
		{[]string{"--phase-timeout"}, nil, PhaseTimeout{}, "--phase-timeout: needs a value"},
		{[]string{"--phase-timeout", "1ms"}, nil, PhaseTimeout{}, "--phase-timeout: 1ms: want 0 (off) or a duration in [100ms, 1000h]"},
	} {
		var p PhaseTimeout
		rest, err := SplitPhaseTimeout(tc.args, &p)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SplitPhaseTimeout(%q): %v; want an error containing %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(rest, tc.rest) || p != tc.want {
			t.Errorf("SplitPhaseTimeout(%q) = %q, %+v, %v; want %q, %+v", tc.args, rest, p, err, tc.rest, tc.want)
		}
	}
}

func TestSplitSwitch(t *testing.T) {
	for _, tc := range []struct {
		args, rest []string
		want       []bool // each setting, in order
		err        string
	}{
		{[]string{"-w", "-b", "1m"}, []string{"-w", "-b", "1m"}, nil, ""},
		{[]string{"-w", "--progress", "-r"}, []string{"-w", "-r"}, []bool{true}, ""},
		{[]string{"-progress", "--progress=false"}, []string{}, []bool{true, false}, ""},
		{[]string{"--progress=1", "x"}, []string{"x"}, []bool{true}, ""},
		{[]string{"--progress-interval", "2s"}, []string{"--progress-interval", "2s"}, nil, ""},
		{[]string{"--", "--progress"}, []string{"--", "--progress"}, nil, ""},
		{[]string{"--progress=maybe"}, nil, nil, `--progress: "maybe": want true or false, or the switch alone`},
	} {
		var got []bool
		rest, err := SplitSwitch(tc.args, "progress", func(on bool) error { got = append(got, on); return nil })
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("SplitSwitch(%q): %v; want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(rest, tc.rest) || !slices.Equal(got, tc.want) {
			t.Errorf("SplitSwitch(%q) = %q, %v, %v; want %q, %v", tc.args, rest, got, err, tc.rest, tc.want)
		}
	}
}

// TestPhaseTimeoutPrecedence: the command line, then the environment,
// then the default; a given deadline is not scaled.
func TestPhaseTimeoutPrecedence(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == PhaseTimeoutEnv && v != "" {
				return v, true
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		name, flag, env string
		phases          bool
		timeout         time.Duration
		scale           float64
		err             string
	}{
		{"default, phases", "", "", true, DefaultPhaseTimeout, PhaseScale, ""},
		{"default, coll", "", "", false, DefaultPhaseTimeout, 0, ""},
		{"env", "", "5s", true, 5 * time.Second, 0, ""},
		{"env off", "", "0", true, 0, 0, ""},
		{"flag over env", "2s", "5s", true, 2 * time.Second, 0, ""},
		{"bad env", "", "5", true, 0, 0, "$HPCBENCH_PHASE_TIMEOUT: \"5\" is not a duration"},
		{"bad env, flag given", "2s", "5", true, 2 * time.Second, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p PhaseTimeout
			if tc.flag != "" {
				if err := p.Set(tc.flag); err != nil {
					t.Fatal(err)
				}
			}
			err := p.FromEnv(env(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("FromEnv: %v; want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d, s := p.Stall(tc.phases); d != tc.timeout || s != tc.scale {
				t.Errorf("Stall(%v) = %v, %v; want %v, %v", tc.phases, d, s, tc.timeout, tc.scale)
			}
		})
	}
}

func TestPhaseTimeoutHelp(t *testing.T) {
	h := PhaseTimeoutHelp(true)
	for _, want := range []string{"Watchdog:\n", "--phase-timeout duration", "0: off", PhaseTimeoutEnv} {
		if !strings.Contains(h, want) {
			t.Errorf("help %q lacks %q", h, want)
		}
	}
}

func TestStopDeadline(t *testing.T) {
	for _, tc := range []struct {
		p    PhaseTimeout
		want time.Duration
	}{
		{PhaseTimeout{}, DefaultStopDeadline},
		{PhaseTimeout{D: 2 * time.Second, Given: true}, 2*time.Second + StopMargin},
		{PhaseTimeout{D: 0, Given: true}, 0},
	} {
		if got := tc.p.StopDeadline(); got != tc.want {
			t.Errorf("%+v.StopDeadline() = %v, want %v", tc.p, got, tc.want)
		}
	}
}
