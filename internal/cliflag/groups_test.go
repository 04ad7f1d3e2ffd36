package cliflag

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// groupFlags returns a flag set shaped like mdtest's: switches F, C, u, k,
// v (counted); values n, d, z; a long switch and a long value; -h.
func groupFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var b bool
	var n int
	var s string
	for _, c := range []string{"F", "C", "u", "k"} {
		fs.BoolP("sw"+c, c, false, "")
	}
	fs.VarPF(Count{P: &n}, "verbose", "v", "").NoOptDefVal = CountUp
	fs.IntP("items", "n", 0, "")
	fs.StringP("dir", "d", "", "")
	fs.IntP("depth", "z", 0, "")
	fs.BoolVar(&b, "long-switch", false, "")
	fs.StringVar(&s, "long-value", "", "")
	fs.BoolP("help", "h", false, "")
	return fs
}

// TestSplitGroups checks that short-option groups are split as IOR's
// option.c reads them, and that what it misreads is refused.
func TestSplitGroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want string // split, space-separated; "" with err
		err  string
	}{
		{"-F -C", "-F -C", ""},
		{"-FC", "-F -C", ""},
		{"-vvv", "-v -v -v", ""},
		{"-n100", "-n=100", ""},
		{"-n=100", "-n=100", ""},
		{"-n 100", "-n 100", ""},
		{"-Fn 100", "-F -n 100", ""},
		{"-FnC 100", "-F -n 100 -C", ""},
		{"-Fnz 3", "-F -n 3 -z 3", ""}, // both take the next argument
		{"-uF=1", "-u=1 -F=1", ""},
		{"-uF=0", "-u=0 -F=0", ""},
		{"-nz=2", "-n=2 -z=2", ""},
		{"-F=", "-F", ""}, // a switch with an empty value counts up, as option.c's
		{"-n -5", "-n -5", ""},
		{"-d -F", "-d -F", ""},
		{"-d /q/0", "-d /q/0", ""},
		{"-d/q/0", "-d=/q/0", ""},
		{"-Fn", "-F -n", ""}, // pflag reports the missing value
		{"-q", "-q", ""},     // unknown: pflag reports it
		{"-Fq", "-F -q", ""},
		{"-F5", "-F -5", ""},
		{"-h", "-h", ""},
		{"-Fh", "-F -h", ""},
		{"-Fé", "-F -é", ""},
		{"--long-value x -F", "--long-value x -F", ""},
		{"--long-value -F", "--long-value -F", ""}, // the next argument is the value
		{"--long-value=-F", "--long-value=-F", ""},
		{"--long-switch -F", "--long-switch -F", ""},
		{"--unknown -FC", "--unknown -F -C", ""},
		{"-F -- -FC", "-F -- -FC", ""},
		{"word -FC", "word -F -C", ""},
		{"- -F", "- -F", ""},
		{"-=x", "-=x", ""},
		// misread by option.c
		{"-n1k", "", `"-n1k": mdtest and IOR read the letters of a value written against its option as options too (here -k): write -n 1k or -n=1k`},
		{"-dFuF", "-d=FuF", ""},                                  // option.c sets -F and -u to atoi("FuF"), 0: no change
		{"-F -dFuF", "", `"-dFuF"`},                              // but -F was on
		{"--swF -dFuF", "", `(here -F): write -d FuF or -d=FuF`}, // set by its long name
		{"-d5u", "", `(here -u)`},                                // atoi("5u") is 5: -u on
		{"-dxz", "", `(here -z)`},                                // -z would get "xz"
		{"-Fn100", "", `"-Fn100": mdtest and IOR give -n the next argument, not "100", when it is not the first letter of a group: write -F -n100`},
		{"-FCn1 x", "", `write -FC -n1`},
		{"-n=", "", `"-n=": -n needs a value after =`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			t.Parallel()
			got, err := SplitGroups(groupFlags(), strings.Fields(tt.args))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("SplitGroups(%s) = %q, %v; want error containing %q", tt.args, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitGroups(%s): %v", tt.args, err)
			}
			if want := strings.Fields(tt.want); !slices.Equal(got, want) {
				t.Errorf("SplitGroups(%s) = %q, want %q", tt.args, got, want)
			}
		})
	}
}

// TestSplitGroupsEmptyValue checks that an empty next argument stays an
// argument of its own, so that pflag gives it to the option.
func TestSplitGroupsEmptyValue(t *testing.T) {
	t.Parallel()
	got, err := SplitGroups(groupFlags(), []string{"-Fd", ""})
	if err != nil || !slices.Equal(got, []string{"-F", "-d", ""}) {
		t.Fatalf(`SplitGroups(-Fd "") = %q, %v; want ["-F" "-d" ""]`, got, err)
	}
}

// FuzzSplitGroups checks that SplitGroups never panics, that its errors
// are one line naming the argument, and that what it returns parses the
// same way twice: splitting a split command line changes nothing.
func FuzzSplitGroups(f *testing.F) {
	for _, s := range []string{"-FC", "-n100", "-Fn 100", "-uF=1", "-n1k", "-Fn100", "-d -F", "--long-value -F", "-- -FC", "-=", "-n="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		got, err := SplitGroups(groupFlags(), args)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, `"-`) {
				t.Fatalf("SplitGroups(%q): error %q does not start with the argument", args, msg)
			}
			return
		}
		again, err := SplitGroups(groupFlags(), got)
		if err != nil {
			t.Fatalf("SplitGroups(%q) = %q, which it then refuses: %v", args, got, err)
		}
		if !slices.Equal(again, got) {
			t.Fatalf("SplitGroups(%q) = %q, but SplitGroups of that = %q", args, got, again)
		}
	})
}
