package cliflag

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// groupFlags is a flag set like IOR's: switches w, r, k, z (counted) and
// value options b, t, X, and a long-only value option.
func groupFlags() *pflag.FlagSet {
	fs := NewFlagSet("test")
	var b, k, w, r bool
	var z int
	var size, xfer int64
	var x int
	var file string
	fs.VarPF(Bool{P: &w}, "writeFile", "w", "").NoOptDefVal = "true"
	fs.VarPF(Bool{P: &r}, "readFile", "r", "").NoOptDefVal = "true"
	fs.VarPF(Bool{P: &k}, "keepFile", "k", "").NoOptDefVal = "true"
	fs.VarPF(Count{P: &z}, "randomOffset", "z", "").NoOptDefVal = CountUp
	fs.VarPF(Bool{P: &b}, "dryRun", "", "").NoOptDefVal = "true"
	fs.VarP(Size{P: &size}, "blockSize", "b", "")
	fs.VarP(Size{P: &xfer}, "transferSize", "t", "")
	fs.VarP(Int{P: &x}, "seed", "X", "")
	fs.StringVar(&file, "summaryFile", "", "")
	return fs
}

func TestExpandGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string // words separated by spaces
		want []string
		err  string
	}{
		// HAPPY PATH: IOR's forms
		{"-w", []string{"--writeFile"}, ""},
		{"-wrk", []string{"--writeFile", "--readFile", "--keepFile"}, ""},
		{"-z -z", []string{"--randomOffset", "--randomOffset"}, ""},
		{"-z-k", []string{"--randomOffset", "--keepFile"}, ""}, // testing/complex-tests.sh
		{"-w--r", []string{"--writeFile", "--readFile"}, ""},
		{"-b4m", []string{"--blockSize=4m"}, ""},
		{"-b 4m", []string{"--blockSize=4m"}, ""},
		{"-b=4m", []string{"--blockSize=4m"}, ""},
		{"-t100k", []string{"--transferSize=100k"}, ""}, // IOR would also set -k
		{"-wb 4m", []string{"--writeFile", "--blockSize=4m"}, ""},
		{"-wbk 4m", []string{"--writeFile", "--blockSize=4m", "--keepFile"}, ""},
		{"-wb4m", []string{"--writeFile", "--blockSize=4m"}, ""},
		{"-X -13", []string{"--seed=-13"}, ""},
		{"-X-13", []string{"--seed=-13"}, ""},
		{"-X10-z", []string{"--seed=10", "--randomOffset"}, ""}, // testing-style -s10-z
		{"-X-13-kw", []string{"--seed=-13", "--keepFile", "--writeFile"}, ""},
		{"-b4m-k", []string{"--blockSize=4m", "--keepFile"}, ""}, // IOR also sets -m
		{"-b4m-x", []string{"--blockSize=4m-x"}, ""},             // x is no switch: the value is rejected
		{"-wb1k-r", []string{"--writeFile", "--blockSize=1k", "--readFile"}, ""},
		{"-wr=0", []string{"--writeFile=0", "--readFile=0"}, ""}, // IOR gives the value to every letter
		{"-z=2", []string{"--randomOffset=2"}, ""},
		{"--summaryFile x -w", []string{"--summaryFile=x", "--writeFile"}, ""},
		{"--summaryFile=x", []string{"--summaryFile=x"}, ""},
		{"--dryRun -w", []string{"--dryRun", "--writeFile"}, ""},
		{"--unknown -w", []string{"--unknown", "--writeFile"}, ""}, // left for pflag
		{"-wq", []string{"--writeFile", "-q"}, ""},                 // pflag names -q
		{"stray -w", []string{"stray", "--writeFile"}, ""},
		{"- -w", []string{"-", "--writeFile"}, ""},
		{"-w -- -r x", []string{"--writeFile", "--", "-r", "x"}, ""},
		// SAD PATH
		{"-wb", nil, "-b: needs a value"},
		{"-b", nil, "-b: needs a value"},
		{"-wbt 4m 1m", []string{"--writeFile", "--blockSize=t", "4m", "1m"}, ""}, // -b rejects "t"
		{"-=x", nil, `bad option syntax "-=x"`},
		{"-wé", nil, `unknown option "-é" in "-wé"`},
	}
	for _, tt := range tests {
		got, err := ExpandGroups(groupFlags(), strings.Fields(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ExpandGroups(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExpandGroups(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzExpandGroups checks that the rewriting never panics, that errors
// are one line, and that every option it emits is a long option of the
// flag set, an unknown single letter for pflag to name, or a word it was
// given.
func FuzzExpandGroups(f *testing.F) {
	for _, s := range []string{
		"-wrk", "-z-k", "-b4m -t 1m", "-wbk 4m", "-X -13", "-wr=0", "--summaryFile x", "-wbt 4m 1m",
		"-=x", "-wé", "-\xff", "--", "-", "-b", "-wb", "--=", "---", "-w=", "-b=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		fs := groupFlags()
		out, err := ExpandGroups(fs, args)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		given := make(map[string]bool, len(args))
		for _, a := range args {
			given[a] = true
		}
		for _, w := range out {
			name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
			switch {
			case given[w]:
			case strings.HasPrefix(w, "--") && fs.Lookup(name) != nil:
			case len(w) == 2 && w[0] == '-':
			default:
				t.Fatalf("ExpandGroups(%q) emitted %q", args, w)
			}
		}
	})
}
