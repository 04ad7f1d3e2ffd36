package pmi

import (
	"fmt"
	"strings"
)

// MaxLine is the longest wire line, newline included, that either side
// accepts. The MPICH 4.0.2 client reads replies through a 1024-byte buffer
// and splits anything longer, so the server never sends more.
const MaxLine = 1024

// Pair is one key=value token of a wire line.
type Pair struct {
	Key, Val string
}

// Msg is one parsed wire line: the command (the value of "cmd", or "spawn"
// for the multi-line "mcmd=spawn" form) and every key=value pair in order,
// including the cmd pair itself.
type Msg struct {
	Cmd   string
	Pairs []Pair
}

// Get returns the value of the first pair named key.
func (m Msg) Get(key string) (string, bool) {
	for _, p := range m.Pairs {
		if p.Key == key {
			return p.Val, true
		}
	}
	return "", false
}

// RC returns the value of the "rc" field; a missing rc means success (0), as
// RFC 13 and every MPICH client read it.
func (m Msg) RC() (int, error) {
	v, ok := m.Get("rc")
	if !ok {
		return 0, nil
	}
	n, err := atoiStrict(v)
	if err != nil {
		return 0, &SyntaxError{Line: m.String(), Reason: "rc is not an integer: " + v}
	}
	return n, nil
}

// String formats m as a wire line without the trailing newline.
func (m Msg) String() string {
	var b strings.Builder
	for i, p := range m.Pairs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Val)
	}
	return b.String()
}

// ParseLine parses one wire line (with or without its trailing newline).
// Tokens are separated by runs of white space (strings.Fields); each token splits at its
// first '=' so values may contain '='; fields may come in any order. The line
// must carry cmd= or mcmd=, and may not exceed MaxLine bytes.
func ParseLine(line string) (Msg, error) {
	return parseLine(line, make([]Pair, 0, typicalPairs))
}

// typicalPairs is room for the pairs of every line PMI-1 defines (the
// longest, response_to_init with rc and msg, has six), so that parsing one
// allocates once.
const typicalPairs = 8

// parseLine is ParseLine appending the pairs to pairs[:0], so that a caller
// parsing line after line can reuse one slice. The returned Msg's Pairs
// share pairs' array: the caller must be done with one Msg before parsing
// the next into the same slice.
func parseLine(line string, pairs []Pair) (Msg, error) {
	if len(line) > MaxLine {
		return Msg{}, &SyntaxError{Line: clip(line), Reason: fmt.Sprintf("line of %d bytes exceeds the %d-byte limit", len(line), MaxLine)}
	}
	line = strings.TrimRight(line, "\r\n")
	m := Msg{Pairs: pairs[:0]}
	for tok := range strings.FieldsSeq(line) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			return Msg{}, &SyntaxError{Line: clip(line), Reason: fmt.Sprintf("token %q is not key=value", clip(tok))}
		}
		m.Pairs = append(m.Pairs, Pair{k, v})
	}
	if c, ok := m.Get("cmd"); ok {
		m.Cmd = c
	} else if c, ok := m.Get("mcmd"); ok {
		m.Cmd = c
	} else {
		return Msg{}, &SyntaxError{Line: clip(line), Reason: "no cmd= field"}
	}
	if m.Cmd == "" {
		return Msg{}, &SyntaxError{Line: clip(line), Reason: "empty cmd"}
	}
	return m, nil
}

// Format builds a wire line "cmd=NAME k1=v1 k2=v2 ...\n" from alternating
// keys and values. It panics on an odd number of kv arguments (a programming
// error); values containing spaces or newlines are the caller's bug and are
// rejected by Validate before anything is sent.
func Format(cmd string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic("pmi.Format: odd number of key/value arguments")
	}
	n := len("cmd=\n") + len(cmd) + len(kv) // a space or '=' per string
	for _, s := range kv {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("cmd=")
	b.WriteString(cmd)
	for i := 0; i < len(kv); i += 2 {
		b.WriteByte(' ')
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(kv[i+1])
	}
	b.WriteByte('\n')
	return b.String()
}

// appendFormat appends the line Format(cmd, kv...) builds to dst, for a
// caller that writes lines from one reused buffer.
func appendFormat(dst []byte, cmd string, kv ...string) []byte {
	if len(kv)%2 != 0 {
		panic("pmi.Format: odd number of key/value arguments")
	}
	dst = append(dst, "cmd="...)
	dst = append(dst, cmd...)
	for i := 0; i < len(kv); i += 2 {
		dst = append(dst, ' ')
		dst = append(dst, kv[i]...)
		dst = append(dst, '=')
		dst = append(dst, kv[i+1]...)
	}
	return append(dst, '\n')
}

// ValidToken reports why s cannot travel as a key or value on the wire, or
// nil when it can: it must not contain spaces, tabs or newlines.
func ValidToken(what, s string) error {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return fmt.Errorf("pmi: %s %q: contains whitespace at byte %d, which the PMI-1 wire cannot carry", what, clip(s), i)
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// atoiStrict parses a decimal integer with optional sign, as the wire carries
// rc, rank and size values.
func atoiStrict(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty number")
	}
	neg := false
	i := 0
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i = 1
	}
	if i == len(s) || len(s)-i > 9 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	n := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad number %q", s)
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}
