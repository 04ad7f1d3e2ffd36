package main

import (
	"io"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/launch"
)

// TestHydraSpellings: Hydra's single-dash -np and -bind-to (and their =
// forms) are launch's options before the command, and left alone in the
// command's own arguments.
func TestHydraSpellings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		bind launch.Binding
		cmd  string
	}{
		{"-np 4 -- prog", 4, launch.BindNone, "prog"},
		{"-np=4 prog -np 2", 4, launch.BindNone, "prog -np 2"},
		{"-np 2 -bind-to core prog", 2, launch.BindCore, "prog"},
		{"-n 2 prog -np 3", 2, launch.BindNone, "prog -np 3"},
		{"-np 6 -- prog -np 1", 6, launch.BindNone, "prog -np 1"},
		{"-n 2 -bind-to core -- prog", 2, launch.BindCore, "prog"},
		{"-bind-to=hwthread -n 2 prog -bind-to x", 2, launch.BindHWThread, "prog -bind-to x"},
		{"--timeout 5s -bind-to socket prog", 1, launch.BindSocket, "prog"},
	} {
		o, err := parseLaunch(strings.Fields(tc.in), io.Discard)
		if err != nil || o.N != tc.n || o.Bind != tc.bind || strings.Join(o.Command, " ") != tc.cmd {
			t.Errorf("parseLaunch(%q): N %d bind %v command %q, %v; want N %d bind %v command %q",
				tc.in, o.N, o.Bind, o.Command, err, tc.n, tc.bind, tc.cmd)
		}
	}
}
