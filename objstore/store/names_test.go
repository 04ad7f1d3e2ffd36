package store

import (
	"regexp"
	"strings"
	"testing"
)

// TestNames checks isLabel and isUUID against the regular expressions they
// replace, which state the rules plainly.
func TestNames(t *testing.T) {
	labelRE := regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,127}$`)
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	for _, s := range []string{
		"", "a", "ior", "my-cont_1.2:x", strings.Repeat("x", 127), strings.Repeat("x", 128),
		"a b", "a/b", "é", "a\x00", "A-Z",
		"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0",
		"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f00",
		"0f1e2d3c44b5a-6978-8796-a5b4c3d2e1f0", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1g0",
		"--------------------------------------------------",
	} {
		if got, want := isLabel(s), labelRE.MatchString(s); got != want {
			t.Errorf("isLabel(%q) = %v, want %v", s, got, want)
		}
		if got, want := isUUID(s), uuidRE.MatchString(s); got != want {
			t.Errorf("isUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
