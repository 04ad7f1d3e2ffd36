package config

import (
	"strings"
	"testing"
)

// TestUnsupportedCoversTables checks that the help's list holds every
// option the parser refuses, once, and that parsing each is refused with
// an error naming it.
func TestUnsupportedCoversTables(t *testing.T) {
	reg := testRegistry(t)
	seen := map[string]bool{}
	for _, r := range Unsupported() {
		for _, n := range r.Names {
			if seen[n] {
				t.Errorf("%s listed twice", n)
			}
			seen[n] = true
			args := []string{n}
			if strings.HasPrefix(n, "--") {
				args = []string{n + "=1"}
			}
			_, err := Parse(args, reg)
			if err == nil || !strings.Contains(err.Error(), n) {
				t.Errorf("Parse(%q) = %v, want a refusal naming %s", args, err, n)
			}
		}
	}
	if want := len(unsupportedShort) + len(unsupportedLong); len(seen) != want {
		t.Fatalf("Unsupported lists %d options, the parser refuses %d", len(seen), want)
	}
}
