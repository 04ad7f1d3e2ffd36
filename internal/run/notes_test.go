package run

import (
	"strings"
	"testing"
)

// TestWriteNotes: the notes go to stderr one line each by default, to
// stdout under "Notes:" when NotesEnv asks, and nowhere when there are
// none.
func TestWriteNotes(t *testing.T) {
	notes := []string{"write, iteration 0: straggler rank 1 on b.", "read, iteration 0: straggler rank 0 on a."}
	for _, tc := range []struct {
		env            string
		set            bool
		notes          []string
		stdout, stderr string
	}{
		{"", false, notes, "", "hpcbench: ior: note: write, iteration 0: straggler rank 1 on b.\nhpcbench: ior: note: read, iteration 0: straggler rank 0 on a.\n"},
		{"0", true, notes, "", "hpcbench: ior: note: write, iteration 0: straggler rank 1 on b.\nhpcbench: ior: note: read, iteration 0: straggler rank 0 on a.\n"},
		{"1", true, notes, "\nNotes:\nwrite, iteration 0: straggler rank 1 on b.\nread, iteration 0: straggler rank 0 on a.\n", ""},
		{"1", true, nil, "", ""},
		{"", false, nil, "", ""},
	} {
		getenv := func(k string) (string, bool) {
			if k == NotesEnv && tc.set {
				return tc.env, true
			}
			return "", false
		}
		var out, errs strings.Builder
		writeNotes(&out, &errs, "ior", tc.notes, notesOnStdout(getenv))
		if out.String() != tc.stdout || errs.String() != tc.stderr {
			t.Errorf("%s=%q (set %v), %d notes: stdout %q, stderr %q; want %q, %q", NotesEnv, tc.env, tc.set, len(tc.notes), out.String(), errs.String(), tc.stdout, tc.stderr)
		}
	}
}
