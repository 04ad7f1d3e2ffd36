package launch

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestStreamConsume(t *testing.T) {
	long := strings.Repeat("x", maxPiece+10)
	for _, tc := range []struct {
		name   string
		tag    bool
		reads  []string
		want   []string // what each read passes on
		carry  string   // left over after the last read
		atEOF  string   // what EOF then passes on
		prefix string
	}{
		{name: "whole lines", reads: []string{"a\nb\n"}, want: []string{"a\nb\n"}},
		{name: "tagged lines", tag: true, reads: []string{"a\nb\n"}, want: []string{"[3] a\n[3] b\n"}},
		{name: "line split over reads", tag: true, reads: []string{"ab", "c\nd"}, want: []string{"", "[3] abc\n"}, carry: "d", atEOF: "[3] d"},
		{name: "empty line", tag: true, reads: []string{"\n"}, want: []string{"[3] \n"}},
		// A partial line that reaches maxPiece goes out as a piece; the
		// rest of the line follows without a prefix, and the next line
		// has one again.
		{name: "long line in pieces", tag: true, reads: []string{long[:maxPiece-1], long[maxPiece-1:] + "\nz\n"},
			want: []string{"", "[3] " + long[:maxPiece] + long[maxPiece:] + "\n[3] z\n"}},
		{name: "long line then EOF", tag: true, reads: []string{long}, want: []string{"[3] " + long[:maxPiece]}, carry: long[maxPiece:], atEOF: long[maxPiece:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &stream{}
			if tc.tag {
				s.prefix = []byte("[3] ")
			}
			for i, r := range tc.reads {
				got := string(s.consume(nil, []byte(r)))
				if got != tc.want[i] {
					t.Errorf("read %d passed on %q, want %q", i, got, tc.want[i])
				}
			}
			if string(s.carry) != tc.carry {
				t.Errorf("carry %q, want %q", s.carry, tc.carry)
			}
			if got := string(s.piece(nil, s.carry)); tc.carry != "" && got != tc.atEOF {
				t.Errorf("at EOF %q, want %q", got, tc.atEOF)
			}
		})
	}
}

// TestForwarder runs the loop over real pipes: lines of many ranks, a
// partial last line, and a pipe a leftover process keeps open, which finish
// closes after its grace period.
func TestForwarder(t *testing.T) {
	var out, errb bytes.Buffer
	const n = 5
	f, err := newForwarder(n, &lineWriter{w: &out}, &lineWriter{w: &errb}, true)
	if err != nil {
		t.Fatal(err)
	}
	var held int
	for r := range n {
		var o, e [2]int
		if err := unix.Pipe2(o[:], unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		if err := unix.Pipe2(e[:], unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		if err := f.add(r, r, o[0], e[0]); err != nil {
			t.Fatal(err)
		}
		unix.Write(o[1], []byte("hello\nworld\n"))
		unix.Write(e[1], []byte("no newline"))
		unix.Close(e[1])
		if r == n-1 {
			held = o[1] // a leftover process holds rank 4's stdout
		} else {
			unix.Close(o[1])
		}
	}
	start := time.Now()
	f.finish(200 * time.Millisecond)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("finish returned after %v, before the grace period for the held pipe", d)
	}
	unix.Close(held)
	for r := range n {
		tag := "[" + strconv.Itoa(r) + "] "
		if want := tag + "hello\n" + tag + "world\n"; !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
		if want := tag + "no newline"; !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
