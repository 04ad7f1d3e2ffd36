package main

import (
	"io"
	"strings"
	"testing"
)

// TestHydraNp: Hydra's -np is rewritten before the command only, in both
// of its spellings, and parses as -n.
func TestHydraNp(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-np 4 -- prog", "--np 4 -- prog"},
		{"-np=4 prog -np 2", "--np=4 prog -np 2"},
		{"-np 2 -bind-to core prog", "--np 2 --bind-to core prog"},
		{"-n 2 prog -np 3", "-n 2 prog -np 3"},
	} {
		if got := strings.Join(hydraFlags(strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("hydraFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	o, err := parseLaunch(strings.Fields("-np 6 -- prog -np 1"), io.Discard)
	if err != nil || o.N != 6 || strings.Join(o.Command, " ") != "prog -np 1" {
		t.Errorf("parseLaunch: N %d command %q, %v", o.N, o.Command, err)
	}
}
