package testenv

import (
	"strings"
	"unicode/utf8"
)

// Screen replays what was written to a terminal and returns the lines it
// shows, trailing blanks trimmed: printable text, CR, LF, and the CSI
// erase-in-line sequences (ESC[K, ESC[0K, ESC[2K) that the bar uses.
// Other CSI sequences are dropped.
func Screen(out string) []string {
	lines := [][]rune{nil}
	row, col := 0, 0
	for i := 0; i < len(out); {
		switch c := out[i]; {
		case c == '\r':
			col = 0
			i++
		case c == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, nil)
			}
			i++
		case c == 0x1b && i+1 < len(out) && out[i+1] == '[':
			j := i + 2
			for j < len(out) && (out[j] < 0x40 || out[j] > 0x7e) {
				j++
			}
			if j < len(out) && out[j] == 'K' {
				switch out[i+2 : j] {
				case "", "0":
					if col < len(lines[row]) {
						lines[row] = lines[row][:col]
					}
				case "2":
					lines[row] = nil
				}
			}
			i = j + 1
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			for len(lines[row]) <= col {
				lines[row] = append(lines[row], ' ')
			}
			lines[row][col] = r
			col++
			i += n
		}
	}
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strings.TrimRight(string(l), " ")
	}
	return s
}
