package config

import (
	"strings"
	"testing"
)

// TestCheckMisreads checks which single-dash words are refused because
// option.c and cliflag.ExpandGroups read them differently, and that
// values (the word after a value option) are never checked as options.
func TestCheckMisreads(t *testing.T) {
	t.Parallel()
	p, err := newParser(testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		err  string // "" when accepted
	}{
		{"-n100 -FCr -vv", ""},
		{"-Fn 100", ""},
		{"-uFnC 100", ""},
		{"-uF=1 -n=5", ""},
		{"-dFuF", ""}, // option.c sets -F and -u to atoi("FuF"), 0, as they were
		{"-aDUMMY", ""},
		{"-d/q/0", ""},
		{"-n10-F", ""},        // both read -n 10 -F
		{"-d -n1k", ""},       // -n1k is -d's value
		{"--dir -n1k", ""},    // and --dir's
		{"--dir=x -Fn 5", ""}, // --dir=x takes no word
		{"-- -n1k", ""},
		{"-Fq", ""}, // pflag reports -q
		{"-F -dFuF", `"-dFuF"`},
		{"--files-only -dFuF", "(here -F)"},
		{"-D -aDUMMY", "(here -D)"},
		{"-D=0 -aDUMMY", ""},               // -D turned off: -aDUMMY reads the same
		{"--dirs-only=false -aDUMMY", ""},  // likewise
		{"-D= -aDUMMY", "(here -D)"},       // option.c counts an empty = up
		{"-D=0 -D=1 -aDUMMY", "(here -D)"}, // the last one counts
		{"-d5u", "(here -u)"},              // atoi("5u") is 5: -u on
		{"-dxz", "(here -x, -z)"},
		{"-n0-F", "(here -F)"}, // option.c sets -F to 0, ExpandGroups turns it on
		{"-n1k", "(here -k): write -n 1k or -n=1k"},
		{"-n10F", "(here -F): write -n 10 -F for the number and the switches, or -n 10F or -n=10F"},
		{"-aPOSIX", "(here -I): write -a POSIX or -a=POSIX"},
		{"-Fn100", `"-Fn100": mdtest gives -n the next word, not "100", when it is not the first letter of a group: write -F -n100`},
		{"-Fzb 2", "(here -z, -b)"},
	}
	for _, tt := range tests {
		err := checkMisreads(p.fs, strings.Fields(tt.args))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tt.args, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %v, want an error containing %q", tt.args, err, tt.err)
		}
	}
}

// FuzzCheckMisreads checks that checkMisreads never panics and that its
// errors start with the word they refuse (Parse makes them one line).
func FuzzCheckMisreads(f *testing.F) {
	for _, s := range []string{"-n1k", "-Fn100", "-aDUMMY", "-D\x00-aDUMMY", "-n10-F", "-Fzb\x002", "-d\x00-n1k", "--dir\x00-n1k", "-uF=1", "-\x00--\x00-=", "-é"} {
		f.Add(s)
	}
	p, err := newParser(testRegistry(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		err := checkMisreads(p.fs, strings.Split(line, "\x00"))
		if err == nil {
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, `"-`) {
			t.Fatalf("checkMisreads(%q): %q", line, msg)
		}
	})
}
