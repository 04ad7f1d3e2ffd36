package imb

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/report"
)

// writeFile writes content to a file in a test directory and returns its
// path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseArgs(t *testing.T) {
	lens := writeFile(t, "lens", "# sizes\n0\n8\n\n1k\n64K\n1m\n4M\n")
	type check func(t *testing.T, a Args)
	for _, c := range []struct {
		name string
		args []string
		ok   check
		err  string // substring of the error; "" means success
	}{
		// HAPPY PATH
		{"empty: IMB's defaults", nil, func(t *testing.T, a Args) {
			o := a.Options
			if o.MinLog != 0 || o.MaxLog != 22 || o.MsgsPerSample != 1000 || o.OverallVol != 40<<20 ||
				o.Time != 10*time.Second || o.NPMin != 2 || !o.Sync || o.RootShift || o.Check || len(o.Benchmarks) != 0 ||
				a.Format != report.FormatText {
				t.Errorf("defaults: %+v", a)
			}
		}, ""},
		{"IMB spelling", []string{"-msglog", "3:10", "-iter", "200,8", "-time", "3", "-npmin", "4", "-sync", "0",
			"-root_shift", "on", "-iter_policy", "off", "PingPong", "allreduce", "BCAST"}, func(t *testing.T, a Args) {
			o := a.Options
			if o.MinLog != 3 || o.MaxLog != 10 || o.MsgsPerSample != 200 || o.OverallVol != 8<<20 || o.Time != 3*time.Second ||
				o.NPMin != 4 || o.Sync || !o.RootShift || o.IterPolicy != PolicyOff {
				t.Errorf("options: %+v", o)
			}
			if want := []string{"PingPong", "Allreduce", "Bcast"}; !slices.Equal(o.Benchmarks, want) {
				t.Errorf("benchmarks %q, want %q", o.Benchmarks, want)
			}
		}, ""},
		{"pflag spelling", []string{"--msglog=2:4", "--iter", "5", "--time=500ms", "--check", "--root", "1", "Barrier"},
			func(t *testing.T, a Args) {
				o := a.Options
				if o.MinLog != 2 || o.MaxLog != 4 || o.MsgsPerSample != 5 || o.OverallVol != 40<<20 ||
					o.Time != 500*time.Millisecond || !o.Check || o.Root != 1 {
					t.Errorf("options: %+v", o)
				}
			}, ""},
		{"msglog MAX alone", []string{"-msglog", "12"}, func(t *testing.T, a Args) {
			if a.Options.MinLog != 0 || a.Options.MaxLog != 12 {
				t.Errorf("msglog %d:%d, want 0:12", a.Options.MinLog, a.Options.MaxLog)
			}
		}, ""},
		{"msglen", []string{"-msglen", lens, "PingPong"}, func(t *testing.T, a Args) {
			want := []int{0, 8, 1024, 65536, 1 << 20, 4 << 20}
			if !slices.Equal(a.Options.MsgLen, want) || a.Options.MsgLenFile != lens {
				t.Errorf("msglen %v from %q, want %v", a.Options.MsgLen, a.Options.MsgLenFile, want)
			}
		}, ""},
		{"benchmarks among flags", []string{"Sendrecv", "-check", "Exchange"}, func(t *testing.T, a Args) {
			if want := []string{"Sendrecv", "Exchange"}; !slices.Equal(a.Options.Benchmarks, want) || !a.Options.Check {
				t.Errorf("got %q check=%v", a.Options.Benchmarks, a.Options.Check)
			}
		}, ""},
		{"output and carried flags", []string{"--format", "csv", "-output", "r.json", "--alg", "allreduce=ring", "--fabric", "tcp"},
			func(t *testing.T, a Args) {
				if a.Format != report.FormatCSV || a.Output != "r.json" || a.Options.Alg != "allreduce=ring" || a.Options.Fabric != "tcp" {
					t.Errorf("got %+v", a)
				}
			}, ""},
		{"--json", []string{"--json"}, func(t *testing.T, a Args) {
			if a.Format != report.FormatJSON {
				t.Errorf("format %v", a.Format)
			}
		}, ""},
		{"interval", []string{"--interval", "250ms", "-interval=2s"}, func(t *testing.T, a Args) {
			if a.Options.Interval != 2*time.Second || a.Options.interval() != 2*time.Second {
				t.Errorf("interval %v", a.Options.Interval)
			}
		}, ""},
		{"interval default", nil, func(t *testing.T, a Args) {
			if a.Options.Interval != 0 || a.Options.interval() != time.Second {
				t.Errorf("interval %v, want unset (1s)", a.Options.Interval)
			}
		}, ""},
		{"negative root value attached", []string{"-root", "-1"}, nil, "-root -1: must be a rank"},

		// SAD PATH: one line naming the flag and what it accepts.
		{"msglog reversed", []string{"-msglog", "5:3"}, nil, `"--msglog" flag: want MIN:MAX with 0 <= MIN < MAX <= 30`},
		{"msglog too big", []string{"-msglog", "0:31"}, nil, "MAX <= 30"},
		{"msglog junk", []string{"-msglog", "a:b"}, nil, `invalid argument "a:b" for "--msglog"`},
		{"iter zero", []string{"-iter", "0"}, nil, "want N[,VOL] with N in [1, 2147483647]"},
		{"iter junk", []string{"-iter", "1000,x"}, nil, `"--iter" flag`},
		{"iter four fields", []string{"-iter", "1,2,3,4"}, nil, `"--iter" flag`},
		{"time zero", []string{"-time", "0"}, nil, "want seconds > 0"},
		{"time negative", []string{"-time", "-3"}, nil, "want seconds > 0"},
		{"npmin zero", []string{"-npmin", "0"}, nil, "-npmin 0: must be at least 1"},
		{"sync junk", []string{"-sync", "maybe"}, nil, "want on or off"},
		{"policy", []string{"-iter_policy", "auto"}, nil, `-iter_policy "auto": must be dynamic or off`},
		{"unknown benchmark", []string{"Uniband"}, nil, `unknown benchmark "Uniband": want one of PingPong, PingPing`},
		{"msglen missing", []string{"-msglen", "/nonexistent/lens"}, nil, "--msglen"},
		{"unsupported IMB option", []string{"-multi", "0"}, nil, "-multi: an IMB-MPI1 option that hpcbench coll does not support"},
		{"format", []string{"--format", "xml"}, nil, `invalid format "xml"`},
		{"json and csv", []string{"--json", "--csv"}, nil, "--json and --csv: choose one"},
		{"missing value", []string{"-npmin"}, nil, "flag needs an argument"},
		{"interval too short", []string{"--interval", "100us"}, nil, `invalid argument "100us" for "--interval" flag: 100µs: want a duration in [1ms, 1h]`},
		{"interval too long", []string{"-interval", "2h"}, nil, `"--interval" flag: 2h0m0s: want a duration in [1ms, 1h]`},
		{"interval zero", []string{"--interval=0"}, nil, `"--interval" flag: 0s: want a duration in [1ms, 1h]`},
		{"interval junk", []string{"--interval", "soon"}, nil, `"--interval" flag: "soon" is not a duration such as 1s or 250ms`},
		{"interval missing", []string{"--interval"}, nil, "flag needs an argument"},
		{"until-steady", []string{"--until-steady"}, nil, "--until-steady: not for coll: IMB's repetitions per size are set by -iter and -time"},
		{"until-steady with a value", []string{"PingPong", "--until-steady=5s,2%"}, nil, "--until-steady: not for coll"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseArgs(c.args)
			if c.err == "" {
				if err != nil {
					t.Fatalf("ParseArgs(%q): %v", c.args, err)
				}
				c.ok(t, a)
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("ParseArgs(%q) error %v, want one containing %q", c.args, err, c.err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestParseArgsHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"PingPong", "-help"}} {
		if _, err := ParseArgs(args); !errors.Is(err, pflag.ErrHelp) {
			t.Errorf("ParseArgs(%q) = %v, want pflag.ErrHelp", args, err)
		}
	}
}

func TestNormalizeArgs(t *testing.T) {
	got, err := NormalizeArgs([]string{"-msglog", "0:3", "--iter", "-5", "-check", "-h", "PingPong", "--npmin=2", "--", "-time", "3"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--msglog=0:3", "--iter=-5", "--check", "-h", "PingPong", "--npmin=2", "--", "-time", "3"}
	if !slices.Equal(got, want) {
		t.Errorf("NormalizeArgs = %q, want %q", got, want)
	}
}

func TestParseMsglen(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  string
	}{
		{"0\n1\n2\n", []int{0, 1, 2}, ""},
		{"# IMB lengths\r\n  8 \r\n\r\n4k\n1 m\n2MiB\n", []int{8, 4096, 1 << 20, 2 << 20}, ""},
		{"1024\n8\n", []int{1024, 8}, ""},
		{"", nil, "no sizes"},
		{"# only a comment\n\n", nil, "no sizes"},
		{"8\nabc\n", nil, "line 2: \"abc\" is not a size"},
		{"-8\n", nil, "line 1: \"-8\" is not a size"},
		{"2g\n", nil, "line 1: size 2147483648: must be in [0, 1073741824]"},
		{"8 # trailing\n", nil, "line 1"},
		{strings.Repeat("1\n", MaxSizes+1), nil, "more than 1000 sizes"},
	} {
		got, err := ParseMsglen([]byte(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseMsglen(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseMsglen(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Benchmarks = []string{"nope"} }, `benchmark: unknown benchmark "nope"`},
		{func(o *Options) { o.MinLog, o.MaxLog = 4, 4 }, "-msglog 4:4: want MIN:MAX"},
		{func(o *Options) { o.MsgLen = []int{-1} }, "-msglen: size -1: must be in [0, 1073741824]"},
		{func(o *Options) { o.OverallVol = -1 }, "-iter N,VOL"},
		{func(o *Options) { o.Time = 0 }, "-time 0s: must be positive"},
		{func(o *Options) { o.Root = -2 }, "-root -2"},
		{func(o *Options) { o.Interval = -time.Second }, "--interval -1s: want a duration in [1ms, 1h]"},
		{func(o *Options) { o.Interval = time.Microsecond }, "--interval 1µs: want a duration in [1ms, 1h]"},
	} {
		o := NewOptions()
		c.mod(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate() = %v, want %q", err, c.want)
		}
	}
	o := NewOptions()
	if err := o.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
