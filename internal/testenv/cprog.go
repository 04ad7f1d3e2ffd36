package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CProgramOutput compiles the C program src against the pkg-config
// package pkg (gcc and pkg-config must be there, else the test skips,
// as it does when pkg is not installed: deb names its Debian package),
// runs it and returns its standard output. Tests that lay out a C
// library's structures by hand compare them with what the compiler
// prints.
func CProgramOutput(t testing.TB, pkg, deb, src string) string {
	t.Helper()
	cc := RequireTool(t, "gcc")
	pc := RequireTool(t, "pkg-config")
	flags, err := exec.Command(pc, "--cflags", "--libs", pkg).Output()
	if err != nil {
		t.Skipf("pkg-config %s: %v (Debian: %s)", pkg, err, deb)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	args := append([]string{"-o", exe, file}, strings.Fields(string(flags))...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	return string(out)
}
