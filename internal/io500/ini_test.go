package io500

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestParseConfigRefuses(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"unknown key", "[global]\ndatadir = x\n[ior-easy]\nfoo = 1\n", `line 4: unknown option "foo" in [ior-easy] (it takes: API, transferSize`},
		{"unknown section", "[global]\ndatadir = x\n[ior-medium]\n", "line 3: unknown section [ior-medium]"},
		{"outside section", "datadir = x\n", "line 1: datadir = x is outside any section"},
		{"not a bool", "[global]\ndatadir = x\n[ior-easy]\nfilePerProc = yes\n", `line 4: [ior-easy] filePerProc: "yes" is not a boolean`},
		{"not an int", "[global]\ndatadir = x\n[ior-hard]\nsegmentCount = 1e6\n", `[ior-hard] segmentCount: "1e6" is not an integer`},
		{"negative uint", "[global]\ndatadir = x\n[mdtest-easy]\nn = -1\n", `[mdtest-easy] n: "-1" is not an integer >= 0`},
		{"int overflow", "[global]\ndatadir = x\n[debug]\nstonewall-time = 99999999999\n", `[debug] stonewall-time: "99999999999" is out of range`},
		{"garbage line", "[global]\ndatadir = x\nhello\n", `line 3: in [global]: not a [section], key = value or comment line: "hello"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("c.ini", c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line containing %q", err, c.want)
			}
		})
	}
}

func TestParseConfigAccepts(t *testing.T) {
	c, err := ParseConfig("c.ini", "# comment\n[ Global ] ; a comment\n  DATADIR = /x/y   # trailing\nresultdir =\n[ior-easy]\nfilePerProc = 0\nposix.odirect = true\n[debug]\nstonewall-time = 2\r\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct{ got, want string }{
		{c.Str("global", "datadir"), "/x/y"},
		{c.Str("global", "resultdir"), "./results"}, // an empty value stays unset: the default
		{c.Str("ior-easy", "filePerProc"), "FALSE"},
		{c.Str("ior-easy", "posix.odirect"), "TRUE"},
		{c.Str("debug", "stonewall-time"), "2"},
	} {
		if g.got != g.want {
			t.Errorf("got %q, want %q", g.got, g.want)
		}
	}
}

// TestListMatchesIO500 checks --list against the IO500 application's
// own --list output.
func TestListMatchesIO500(t *testing.T) {
	want, err := os.ReadFile("testdata/list.golden")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteList(&b, nil, true); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("--list differs from IO500's:\n%s", b.String())
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"[global]\ndatadir = x\n", "[ior-easy]\ntransferSize = 2m # c\n", "[debug]\nstonewall-time = -3\n", "x", "[", "a=b"} {
		f.Add(s)
	}
	data, _ := os.ReadFile("testdata/short.ini")
	f.Add(string(data))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig("f.ini", s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		// Whatever parses lists and hashes, and its listing parses back
		// to the same hash.
		var b bytes.Buffer
		if err := WriteList(&b, c, false); err != nil {
			t.Fatal(err)
		}
		c2, err := ParseConfig("list.ini", b.String())
		if err != nil {
			t.Fatalf("the listing of a parsed file does not parse: %v\n%s", err, b.String())
		}
		if c.Hash() != c2.Hash() {
			t.Fatalf("hash %X, listed and parsed again %X", c.Hash(), c2.Hash())
		}
	})
}

func TestConfigCheck(t *testing.T) {
	for _, c := range []struct{ data, err, warn string }{
		{"[global]\ndatadir = x\n[find]\nexternal-script = /bin/find.sh\n", "[find] external-script = /bin/find.sh: hpcbench runs its own parallel find", ""},
		{"[global]\ndatadir = x\nio-buffers-on-gpu = TRUE\n", "[global] io-buffers-on-gpu = TRUE: hpcbench has no GPU buffers", ""},
		{"[global]\ndatadir = x\n[find]\nexternal-extra-args = -v\n", "", "Using internal pfind, will ignore any arguments to the external script"},
		{"[global]\ndatadir = x\n[find-easy]\nexternal-script = /bin/find.sh\n", "", ""}, // an optional phase's: not run
	} {
		cfg, err := ParseConfig("c.ini", c.data)
		if err != nil {
			t.Fatal(err)
		}
		w, err := cfg.Check()
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: error %v, want %q", c.data, err, c.err)
		}
		if got := strings.Join(w, "|"); got != c.warn {
			t.Errorf("%q: warnings %q, want %q", c.data, got, c.warn)
		}
	}
}
