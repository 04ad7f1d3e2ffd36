package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report"
)

// checkParseError asserts err is what a user may see from a command line:
// nil, help, or a one-line usage error.
func checkParseError(t *testing.T, args []string, err error) {
	t.Helper()
	if err == nil || errors.Is(err, errHelp) {
		return
	}
	if !pipeline.IsUsage(err) {
		t.Fatalf("%q: error %v is not a usage error", args, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("%q: error is not one line: %q", args, err)
	}
}

func splitArgs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// FuzzLaunchFlags: no command line crashes launch's parser, and every error
// is a one-line usage error.
func FuzzLaunchFlags(f *testing.F) {
	for _, s := range []string{
		"-n\x004\x00--\x00hpcbench\x00wireup", "-n\x000", "-n\x00abc", "--timeout\x00xyz", "-n4\x00true",
		"--np=7\x00--tag-output\x00--pmi-port\x00--pmi-trace\x00/tmp/x\x00true", "--grace\x00-1s\x00true", "-h", "--",
		"-hosts\x00a:2,b\x00true", "--hosts\x00localhost:3\x00-n\x002\x00true", "-f\x00/dev/null\x00true", "-ppn\x002\x00-rr\x00true",
		"-machinefile=x\x00--hosts=y\x00true", "-ppn\x000\x00true",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := splitArgs(s)
		o, err := parseLaunch(args, io.Discard)
		if err == nil {
			if verr := o.Validate(); verr != nil {
				err = usagef("launch: %v", verr)
			}
		}
		checkParseError(t, args, err)
	})
}

// FuzzWireupFlags: the same for wireup.
func FuzzWireupFlags(f *testing.F) {
	for _, s := range []string{"--card-size\x00128", "--pattern\x00ring", "--json\x00--csv", "--format\x00xml", "--card-size=0", "--output\x00x.csv", "extra"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := splitArgs(s)
		_, err := parseWireup(args, io.Discard)
		checkParseError(t, args, err)
	})
}

// FuzzCollFlags: the same for coll, whose IMB options pass through
// imb.NormalizeArgs and then singleDashLong.
func FuzzCollFlags(f *testing.F) {
	for _, s := range []string{
		"-msglog\x000:3\x00PingPong", "-iter\x0010,1\x00-time\x001", "-multi\x000", "-foo", "-h", "-help",
		"--format=json\x00-csv", "-root_shift\x00on\x00-sync\x00off\x00bcast", "-npmin\x00-1", "--\x00-time",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := splitArgs(s)
		_, err := parseColl(args, io.Discard, new(cliflag.PhaseTimeout))
		checkParseError(t, args, err)
	})
}

func TestParseLaunch(t *testing.T) {
	o, err := parseLaunch([]string{"-n", "8", "--timeout", "90s", "--tag-output", "--", "hpcbench", "wireup", "-n", "3"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.N != 8 || o.Timeout != 90*time.Second || !o.TagOutput || strings.Join(o.Command, " ") != "hpcbench wireup -n 3" {
		t.Errorf("parsed %+v", o)
	}
	// Without "--", flags after the command belong to it.
	o, err = parseLaunch([]string{"-n", "2", "sh", "-c", "echo"}, io.Discard)
	if err != nil || strings.Join(o.Command, " ") != "sh -c echo" {
		t.Errorf("parsed %+v, %v", o, err)
	}
	var help bytes.Buffer
	if _, err := parseLaunch([]string{"--help"}, &help); !errors.Is(err, errHelp) || !strings.Contains(help.String(), "--pmi-trace DIR") {
		t.Errorf("--help: %v\n%s", err, help.String())
	}
}

func TestParseWireup(t *testing.T) {
	wa, err := parseWireup([]string{"--card-size", "100", "--pattern", "ring", "--csv", "--output", "x.json"}, io.Discard)
	if err != nil || wa.opts.CardSize != 100 || wa.opts.Pattern != "ring" || wa.format != report.FormatCSV || wa.output != "x.json" {
		t.Errorf("parsed %+v, %v", wa, err)
	}
}

func TestMainExit(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{nil, 2, "", "usage: hpcbench COMMAND"},
		{[]string{"frob"}, 2, "", `unknown command "frob"`},
		{[]string{"--bogus"}, 2, "", `hpcbench: unknown option "--bogus": a command comes first (hpcbench COMMAND [OPTIONS], COMMAND one of coll, compare, dfs, fabric, io500, ior, launch, mdtest, plot, report, wireup); run 'hpcbench help'`},
		{[]string{"-n", "4"}, 2, "", `hpcbench: unknown option "-n": a command comes first`},
		{[]string{"help"}, 0, "launch ", ""},
		{[]string{"--help"}, 0, "wireup ", ""},
		{[]string{"help", "launch"}, 0, "usage: hpcbench launch -n N", ""},
		{[]string{"help", "frob"}, 2, "", `help: unknown command "frob"`},
		{[]string{"version"}, 0, "hpcbench dev", ""},
		{[]string{"--version"}, 0, "hpcbench dev", ""},
		{[]string{"-version"}, 0, "hpcbench dev", ""},
		{[]string{"--version", "x"}, 2, "", "takes no arguments"},
		{[]string{"version", "x"}, 2, "", "takes no arguments"},
		{[]string{"version", "--help"}, 0, "usage: hpcbench version\n", ""},
		{[]string{"help", "version"}, 0, "usage: hpcbench version\n", ""},
		{[]string{"help", "help"}, 0, "usage: hpcbench help [CMD]\n", ""},
		{[]string{"help", "--help"}, 0, "usage: hpcbench help [CMD]\n", ""},
		{[]string{"help", "launch", "--help"}, 0, "usage: hpcbench launch -n N", ""},
		{[]string{"help", "launch", "-n"}, 2, "", `help: takes one command name and an optional --help, got "-n"`},
		{[]string{"help", "__spawn"}, 2, "", `help: unknown command "__spawn"`},
		{[]string{"-help"}, 0, "usage: hpcbench COMMAND", ""},
		{[]string{"launch", "-hosts", "a,,b", "true"}, 2, "", "launch: --hosts: host 2 is empty"},
		{[]string{"launch", "-n", "2", "--hosts", "a,b", "--iface", "nosuch0", "true"}, 2, "", `launch: --iface "nosuch0": no such interface`},
		{[]string{"launch", "--genv=A", "B", "true"}, 2, "", "launch: --genv: not supported"},
		{[]string{"wireup", "-hx"}, 2, "", `wireup: unknown option "-hx"`},
	} {
		var out, errb bytes.Buffer
		code := mainExit(tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.errs) {
			t.Errorf("%q: exit %d stdout %q stderr %q; want %d, %q, %q", tc.args, code, out.String(), errb.String(), tc.code, tc.stdout, tc.errs)
		}
		if strings.Contains(out.String(), "__spawn") {
			t.Errorf("%q lists the hidden spawner", tc.args)
		}
	}
}

// TestSingleDashLong: one-dash long options become two-dash ones in the
// options only; grouped short options, values and the command's own
// arguments stay as they are.
func TestSingleDashLong(t *testing.T) {
	fs := newFlagSet("t")
	fs.IntP("np", "n", 1, "")
	fs.BoolP("verbose", "v", false, "")
	fs.Bool("tag-output", false, "")
	fs.String("bind-to", "", "")
	fs.Duration("timeout", 0, "")
	refusedOpts := []notSupported{{[]string{"-hosts", "-f"}, "not here"}}
	for _, tc := range []struct{ in, want, err string }{
		{"-np 4 -bind-to core prog -np 3", "--np 4 --bind-to core prog -np 3", ""},
		{"-np=4 -tag-output -- prog", "--np=4 --tag-output -- prog", ""},
		{"-n 4 -vn 2 -n8 -v prog", "-n 4 -vn 2 -n8 -v prog", ""},
		{"-timeout -1s -verbose prog", "--timeout -1s --verbose prog", ""},
		{"--timeout -np -v", "--timeout -np -v", ""},       // -np is --timeout's value
		{"-n -tag-output prog", "-n -tag-output prog", ""}, // and here -n's
		{"-bind-to=core -help", "--bind-to=core --help", ""},
		{"-h", "-h", ""},
		{"- -np 2", "- -np 2", ""}, // "-" is an operand
		{"-hosts a prog", "", "-hosts: not here"},
		{"--hosts=a prog", "", "--hosts: not here"},
		{"-f hosts prog", "", "-f: not here"},
		{"-n 2 prog -hosts", "-n 2 prog -hosts", ""},
		{"-genv A B prog", "", `unknown option "-genv"`},
	} {
		got, err := singleDashLong(fs, strings.Fields(tc.in), refusedOpts)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("singleDashLong(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("singleDashLong(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
