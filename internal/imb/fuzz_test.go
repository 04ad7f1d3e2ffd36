package imb

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzParseArgs: no command line crashes the parser; every error is one
// line; every accepted command line gives options that validate.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"-msglog\x000:22\x00PingPong", "-iter\x001000,40\x00-time\x003", "--msglog=5:3", "-iter\x00,", "-time\x00nan",
		"-time\x001e300", "-npmin\x00-1", "-sync\x00on\x00-root_shift\x00yes", "-check\x00allreduce", "-multi\x000",
		"--format\x00json\x00--csv", "-h", "--\x00-time", "-root\x00-1", "-iter\x0099999999999999999999", "-msglog\x00-3:2",
		"--interval\x00250ms", "-interval\x000", "--until-steady",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		for _, a := range args {
			if strings.Contains(a, "msglen") {
				return // reads files
			}
		}
		a, err := ParseArgs(args)
		if err != nil {
			if !errors.Is(err, pflag.ErrHelp) && strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%q: error is not one line: %q", args, err)
			}
			return
		}
		if err := a.Options.Validate(); err != nil {
			t.Fatalf("%q: accepted, but Validate says %v", args, err)
		}
	})
}

// FuzzParseMsglen: no file crashes the parser; accepted sizes are in range.
func FuzzParseMsglen(f *testing.F) {
	for _, s := range []string{"0\n1\n2\n", "# c\n4k\n1 m\n", "8\nabc\n", "", "2g\n", "99999999999999999999999\n", "\r\n\t8\t\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sizes, err := ParseMsglen(data)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if len(sizes) == 0 || len(sizes) > MaxSizes {
			t.Fatalf("%d sizes accepted", len(sizes))
		}
		for _, s := range sizes {
			if s < 0 || s > MaxMsgSize {
				t.Fatalf("size %d accepted", s)
			}
		}
	})
}
