package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the file at path (testdata/NAME.golden, by
// convention) and fails the test, showing got, when they differ. With
// update set (the test's -update flag) it writes got to path instead,
// creating the directory.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}
