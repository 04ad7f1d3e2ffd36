package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// script is a parsed -f file: its directives in order, and where each test
// ends. Test i is the command line plus lines[:ends[i]], because a test
// inherits every setting made before it.
type script struct {
	lines []scriptLine
	ends  []int
}

// scriptLine is one directive and the line it came from.
type scriptLine struct {
	line int
	d    Directive
}

// loadScript opens name and reads it as a script.
func loadScript(open func(string) (io.ReadCloser, error), name string) (*script, error) {
	f, err := open(name)
	if err != nil {
		return nil, fmt.Errorf("open script: %w", err)
	}
	defer f.Close()
	return readScript(f)
}

// readScript reads IOR's script format: lines before "IOR START" are
// ignored; then every line up to "IOR STOP" is blank, a comment (# to the
// end of the line), "RUN", or directives as -O takes them: key=value
// pieces and command-line options, separated by commas (blockSize=4m,
// --posix.odirect=1, -a POSIX). RUN ends a test and the next directive
// starts another that inherits its settings; RUN twice in a row repeats
// the test; a RUN at the end adds nothing. Markers match without regard
// to case or spacing, and may carry a comment. Unlike IOR, a missing IOR
// START or IOR STOP is an error.
func readScript(r io.Reader) (*script, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxScriptLine)
	s := &script{}
	n := 0
	started, stopped, run := false, false, false
	for !stopped && sc.Scan() {
		n++
		text := sc.Text()
		uncommented, _, _ := strings.Cut(text, "#")
		words := strings.Fields(uncommented)
		switch {
		case !started:
			started = isMarker(words, "IOR", "START")
		case len(words) == 0:
		case isMarker(words, "IOR", "STOP"):
			stopped = true
		case isMarker(words, "RUN"):
			if run {
				if err := s.endTest(); err != nil {
					return nil, fmt.Errorf("line %d: %w", n, err)
				}
			}
			run = true
		default:
			ds, err := ParseDirectives(text)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if run {
				if err := s.endTest(); err != nil {
					return nil, fmt.Errorf("line %d: %w", n, err)
				}
				run = false
			}
			if len(s.lines)+len(ds) > maxScriptDirectives {
				return nil, fmt.Errorf("line %d: more than %d directives", n, maxScriptDirectives)
			}
			for _, d := range ds {
				s.lines = append(s.lines, scriptLine{line: n, d: d})
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", n+1, maxScriptLine)
		}
		return nil, fmt.Errorf("read script: %w", err)
	}
	switch {
	case !started:
		return nil, errors.New(`no "IOR START" line`)
	case !stopped:
		return nil, errors.New(`no "IOR STOP" line after "IOR START"`)
	}
	if err := s.endTest(); err != nil {
		return nil, err
	}
	return s, nil
}

// endTest closes the current test at the directives read so far.
func (s *script) endTest() error {
	if len(s.ends) >= maxScriptTests {
		return fmt.Errorf("more than %d tests", maxScriptTests)
	}
	s.ends = append(s.ends, len(s.lines))
	return nil
}

// isMarker reports whether words spell the marker, in any case.
func isMarker(words []string, marker ...string) bool {
	if len(words) != len(marker) {
		return false
	}
	for i := range words {
		if !strings.EqualFold(words[i], marker[i]) {
			return false
		}
	}
	return true
}
