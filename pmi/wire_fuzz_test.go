package pmi

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParseLine checks that ParseLine never panics, rejects lines over
// MaxLine, and that a parsed line formats (Msg.String) and re-parses to the
// same pairs. The seed corpus is every line of the captured transcripts.
func FuzzParseLine(f *testing.F) {
	err := filepath.WalkDir("testdata/transcripts", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		file, err := os.Open(path)
		if err != nil {
			return err
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "C: "); ok {
				line = rest
			} else if rest, ok := strings.CutPrefix(line, "S: "); ok {
				line = rest
			}
			f.Add(line)
		}
		return sc.Err()
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("mcmd=spawn")
	f.Add("cmd=get_result rc=0 msg=success value=a=b found=TRUE\r\n")
	f.Add(" \tcmd=set\t\tsize=2 ")
	f.Add("cmd=put value=" + strings.Repeat("F", MaxLine))

	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseLine(line)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseLine(%q) error %v is not a *SyntaxError", line, err)
			}
			return
		}
		if len(line) > MaxLine {
			t.Fatalf("ParseLine accepted a line of %d bytes, over MaxLine", len(line))
		}
		if m.Cmd == "" {
			t.Fatalf("ParseLine(%q) succeeded with an empty Cmd", line)
		}
		s := m.String()
		m2, err := ParseLine(s)
		if err != nil {
			t.Fatalf("re-parsing %q (from %q): %v", s, line, err)
		}
		if m2.Cmd != m.Cmd || !slices.Equal(m2.Pairs, m.Pairs) {
			t.Fatalf("round trip of %q changed it:\n got %q %q\nwant %q %q", line, m2.Cmd, m2.Pairs, m.Cmd, m.Pairs)
		}
	})
}
