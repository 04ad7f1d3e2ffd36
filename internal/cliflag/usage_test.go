package cliflag

import (
	"strings"
	"testing"
	"time"
)

func TestUsages(t *testing.T) {
	t.Parallel()
	fs := NewFlagSet("cmd")
	fs.BoolP("tag-output", "t", false, "prefix lines")
	fs.Bool("on", true, "on by default")
	sw := false
	fs.VarPF(Bool{P: &sw}, "filePerProc", "F", "one file per task").NoOptDefVal = "true"
	fs.VarPF(Count{P: new(int)}, "verbose", "v", "more output").NoOptDefVal = CountUp
	fs.IntP("np", "n", 1, "ranks")
	fs.Duration("timeout", 0, "limit")
	fs.String("pmi-trace", "", "write to `DIR`")
	fs.Duration("grace", 2*time.Second, "wait")
	hidden := fs.VarPF(Bool{P: new(bool)}, "secret", "", "not shown")
	hidden.Hidden = true
	got := Usages(fs)
	want := "" +
		"  -t, --tag-output         prefix lines\n" +
		"      --on                 on by default (default true)\n" +
		"  -F, --filePerProc        one file per task\n" +
		"  -v, --verbose count      more output\n" +
		"  -n, --np int             ranks (default 1)\n" +
		"      --timeout duration   limit\n" +
		"      --pmi-trace DIR      write to DIR\n" +
		"      --grace duration     wait (default 2s)\n"
	if got != want {
		t.Errorf("Usages:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "[=") || strings.Contains(got, "secret") {
		t.Errorf("Usages shows a switch's value or a hidden flag:\n%s", got)
	}
	// The copy leaves fs's own flags as they were.
	if f := fs.Lookup("tag-output"); f.NoOptDefVal != "true" || f.Value.Type() != "bool" {
		t.Errorf("fs changed: %+v", f)
	}
	if err := fs.Parse([]string{"--tag-output=false", "-t"}); err != nil {
		t.Fatal(err)
	}
}
