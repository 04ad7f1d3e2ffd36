package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
)

// hpcbench is the binary the end-to-end tests run, built once by TestMain.
var hpcbench string

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) {
	os.Exit(testenv.BuildMain(m, &hpcbench))
}

// listed returns the names of the commands hpcbench help lists.
func listed() []string {
	var names []string
	for n, c := range commands() {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// outcome is what mainExit did with one command line.
type outcome struct {
	code           int
	stdout, stderr string
}

func mainOutcome(args ...string) outcome {
	var out, errb bytes.Buffer
	code := mainExit(args, &out, &errb)
	return outcome{code, out.String(), errb.String()}
}

// TestHelpGolden: every command's help, and hpcbench's own, as
// testdata/help/NAME.golden has it (go test -run TestHelpGolden -update
// rewrites them).
func TestHelpGolden(t *testing.T) {
	for _, name := range append(listed(), "hpcbench") {
		args := []string{name, "--help"}
		if name == "hpcbench" {
			args = []string{"--help"}
		}
		o := mainOutcome(args...)
		if o.code != 0 || o.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q", args, o.code, o.stderr)
		}
		testenv.Golden(t, filepath.Join("testdata", "help", name+".golden"), []byte(o.stdout), *update)
	}
}

// TestHelpRules checks the rules every command's help follows, whoever
// wrote it: the same text, on stdout with exit 0, for CMD --help, CMD -h,
// CMD -help, help CMD and help CMD --help; one usage line first, then a
// description; switches written bare; options it does not support marked
// where they are listed; an "Exit status:" section listing 0 first and 2.
func TestHelpRules(t *testing.T) {
	exitLine := regexp.MustCompile(`^  (\d+|\d+\+[A-Z]|[A-Z])  +\S`)
	for _, name := range listed() {
		t.Run(name, func(t *testing.T) {
			want := mainOutcome(name, "--help")
			for _, args := range [][]string{{name, "-h"}, {name, "-help"}, {"help", name}, {"help", name, "--help"}, {"help", name, "-h"}} {
				if got := mainOutcome(args...); got != want {
					t.Errorf("%q: exit %d, stderr %q, stdout differs from %s --help's", args, got.code, got.stderr, name)
				}
			}
			if want.code != 0 || want.stderr != "" {
				t.Fatalf("--help: exit %d, stderr %q", want.code, want.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(want.stdout, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "usage: hpcbench "+name) || len(lines) < 3 || lines[1] != "" || lines[2] == "" {
				t.Errorf("help does not start with a usage line, a blank line and a description:\n%s", want.stdout)
			}
			for i, l := range lines[1:] {
				if strings.HasPrefix(strings.ToLower(l), "usage") {
					t.Errorf("line %d is a second usage line: %q", i+2, l)
				}
				if strings.Contains(l, "[=true") || strings.Contains(l, "[=false") {
					t.Errorf("line %d writes a switch with its value: %q", i+2, l)
				}
			}
			listed := map[string]bool{}
			for _, u := range helpFor(name).unsupported {
				for _, n := range u.names {
					listed[n] = true
				}
			}
			for _, l := range lines {
				if m := optionSpelling.FindStringSubmatch(l); m != nil && (listed[m[1]] || listed[m[2]]) &&
					!strings.Contains(l, "not supported") {
					t.Errorf("option line %q does not say that it is not supported", l)
				}
			}
			_, exits, ok := strings.Cut(want.stdout, "\nExit status:\n")
			if !ok {
				t.Fatalf("no Exit status: section:\n%s", want.stdout)
			}
			codes := []string{}
			for _, l := range strings.Split(strings.TrimSuffix(exits, "\n"), "\n") {
				m := exitLine.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("exit status line %q is not \"  CODE  meaning\"", l)
					continue
				}
				codes = append(codes, m[1])
			}
			if len(codes) == 0 || codes[0] != "0" || !strings.Contains(" "+strings.Join(codes, " ")+" ", " 2 ") {
				t.Errorf("exit statuses %v: want 0 first, and 2", codes)
			}
		})
	}
}

// optionLine is one line of pflag's layout: "  -n, --np int   usage" or
// "      --tag-output   usage".
var optionLine = regexp.MustCompile(`^  (?:-\S, |    )--([^\s\[]+)( \S+)?  +\S`)

// helpOptions returns the long options in the "Options:" section of a
// help, each with its value's name ("" for a switch).
func helpOptions(t *testing.T, help string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(help, "\nOptions:\n")
	if !ok {
		t.Fatalf("no Options: section:\n%s", help)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	opts := map[string]string{}
	for _, l := range strings.Split(section, "\n") {
		m := optionLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("option line %q is not in pflag's layout", l)
		}
		opts[m[1]] = strings.TrimSpace(m[2])
	}
	return opts
}

// TestHelpSingleDash: every long option in the help of launch, wireup and
// coll, whose users type mpiexec's and IMB's one-dash options, works with
// one dash as with two, with its value apart or after "=". (ior and mdtest
// read one dash as IOR does: short options, grouped.)
func TestHelpSingleDash(t *testing.T) {
	dir := t.TempDir()
	sizes := filepath.Join(dir, "sizes")
	if err := os.WriteFile(sizes, []byte("8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A valid value for each kind of value the helps name; the command
	// line ends in --help, so nothing runs and nothing is written.
	samples := map[string]string{
		"int": "1", "duration": "1s", "string": "x", "DIR": dir, "FILE": sizes, "HOSTS": "localhost:2", "unit": "core", "CMD": "ssh", "KIND": "ssh",
		"format": "json", "size": "1k", "min:max": "0:3", "n[,vol]": "10", "seconds": "1", "on|off": "on",
	}
	for _, name := range []string{"launch", "wireup", "coll"} {
		t.Run(name, func(t *testing.T) {
			help := mainOutcome(name, "--help").stdout
			opts := helpOptions(t, help)
			if len(opts) == 0 {
				t.Fatal("no options found in the help")
			}
			for opt, kind := range opts {
				forms := [][]string{{"--" + opt}, {"-" + opt}}
				if kind != "" {
					v, ok := samples[kind]
					if !ok {
						t.Fatalf("--%s %s: no sample value for %q; add one to this test", opt, kind, kind)
					}
					forms = [][]string{{"--" + opt, v}, {"-" + opt, v}, {"-" + opt + "=" + v}}
				}
				for _, f := range forms {
					args := append(append([]string{name}, f...), "--help")
					if got := mainOutcome(args...); got.code != 0 || got.stdout != help {
						t.Errorf("%q: exit %d, stderr %q; want the help", args, got.code, got.stderr)
					}
				}
			}
		})
	}
}

// TestHelpUnsupportedRefused: every option a help lists as not supported
// is refused by the command, before any work: exit 2, one line on stderr
// naming it (ior's -O spelling counts) and saying it is not supported, nothing on stdout, nothing
// created.
func TestHelpUnsupportedRefused(t *testing.T) {
	// Command lines that reach each refusal (an option's value, or the
	// options its check comes after); by default the option alone.
	reach := map[string][]string{
		"ior -M":                    {"-M", "2g"},
		"ior -y":                    {"-y", "-F"},
		"ior --randomPrefill":       {"--randomPrefill", "4k", "-z"},
		"ior --savePerOpDataCSV":    {"--savePerOpDataCSV", "x"},
		"mdtest -f":                 {"-n", "10", "-f", "1", "-l", "2"},
		"mdtest -l":                 {"-n", "10", "-l", "2"},
		"mdtest -s":                 {"-n", "10", "-s", "1", "-l", "2"},
		"mdtest -c":                 {"-n", "10", "-c"},
		"mdtest --savePerOpDataCSV": {"-n", "10", "--savePerOpDataCSV", "x"},
		"mdtest --print-all-procs":  {"-n", "10", "--print-all-procs"},
	}
	for _, name := range listed() {
		for _, u := range helpFor(name).unsupported {
			for _, opt := range u.names {
				t.Run(name+opt, func(t *testing.T) {
					t.Parallel()
					if !strings.Contains(mainOutcome(name, "--help").stdout, opt) {
						t.Errorf("%s --help does not show %s", name, opt)
					}
					args, ok := reach[name+" "+opt]
					if !ok {
						args = []string{opt}
					}
					if name == "launch" {
						args = append(args, "true")
					}
					dir := t.TempDir()
					r := testenv.Run(t, testenv.Context(t, time.Minute), dir, noPMIEnv, hpcbench, append([]string{name}, args...)...)
					msg := strings.TrimSuffix(r.Stderr, "\n")
					if r.Code != 2 || r.Stdout != "" || strings.Contains(msg, "\n") ||
						!strings.Contains(msg, strings.TrimLeft(opt, "-")) || !strings.Contains(msg, "support") {
						t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want 2 and one line saying %s is not supported",
							name, args, r.Code, r.Stdout, r.Stderr, opt)
					}
					if left, _ := os.ReadDir(dir); len(left) != 0 {
						t.Errorf("%s %q created %v", name, args, left)
					}
				})
			}
		}
	}
}
