package ofi

import (
	"errors"
	"strings"
	"testing"
)

// TestOpenMissing: where libfabric cannot be loaded, open says so in one
// line naming the files it tried and the Debian package.
func TestOpenMissing(t *testing.T) {
	saved := libraryNames
	t.Cleanup(func() { libraryNames = saved })
	libraryNames = []string{"libfabric-nosuch.so.1"}
	_, err := open()
	if !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("open = %v; want ErrNoLibrary", err)
	}
	msg := err.Error()
	for _, want := range []string{"libfabric-nosuch.so.1", "apt-get install libfabric1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is more than one line", msg)
	}
}
