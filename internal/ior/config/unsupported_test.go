package config

import (
	"strings"
	"testing"
)

// TestUnsupportedCoversTable checks that the help's list holds every
// letter the parser refuses, once, and that each is refused with its
// reason.
func TestUnsupportedCoversTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Unsupported() {
		if !strings.HasPrefix(r.Why, "IOR's ") {
			t.Errorf("%v: reason %q does not name IOR's option", r.Names, r.Why)
		}
		for _, n := range r.Names {
			if seen[n] {
				t.Errorf("%s listed twice", n)
			}
			seen[n] = true
		}
	}
	if len(seen) != len(unsupportedShort) {
		t.Fatalf("Unsupported lists %d letters, the parser refuses %d", len(seen), len(unsupportedShort))
	}
	for c, u := range unsupportedShort {
		if !seen["-"+string(c)] {
			t.Errorf("-%c (%s) is refused but not listed", c, u.name)
		}
	}
}
