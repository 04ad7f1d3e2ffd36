package config

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// checkMisreads refuses the single-dash words that mdtest's option parser
// (IOR's src/option.c) reads differently from cliflag.ExpandGroups, which
// Parse then uses to split the command line: where the two readings agree
// the word runs as in mdtest, and where they differ mdtest would misread
// what the user surely meant, so the error names the word and the
// unambiguous spelling. Two cases differ:
//
//   - a value written against its letter ("-n1k", "-aPOSIX"): option.c
//     goes on reading its characters as options and gives each the value,
//     so a value letter among them gets it (-aPOSIX sets -I to "POSIX")
//     and a switch is set to C's atoi of it (-n1k also turns on -k); that
//     changes nothing when atoi is 0 and the switch was not set before
//     ("-aDUMMY" sets -D, -U, -Y to 0), and for a number then '-' and
//     switches ("-n10-F") both readings turn the switches on;
//   - a value letter after the first of its group followed by more than
//     switches ("-Fn100"): option.c gives it the next word, not the rest.
//
// It walks the words as option.c and ExpandGroups do, so that it knows
// which words are values (a value is never checked as options).
func checkMisreads(fs *pflag.FlagSet, args []string) error {
	seen := map[string]bool{} // the switches turned on so far, by name
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			return nil
		case strings.HasPrefix(w, "--"):
			name, val, eq := strings.Cut(w[2:], "=")
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			if f.NoOptDefVal != "" {
				seen[f.Name] = !eq || switchOn(val)
			} else if !eq {
				i++ // the next word is its value
			}
			continue
		case len(w) < 2 || w[0] != '-', w == "-help":
			continue // -help asks for help (cliflag.ExpandGroups)
		}
		next, err := checkGroup(fs, w, seen)
		if err != nil {
			return err
		}
		if next {
			i++
		}
	}
	return nil
}

// checkGroup checks one single-dash word and reports whether it takes the
// next word as a value.
func checkGroup(fs *pflag.FlagSet, w string, seen map[string]bool) (next bool, err error) {
	body, val, eq := strings.Cut(w[1:], "=")
	for k := 0; k < len(body); k++ {
		f := shortFlag(fs, body[k])
		switch {
		case f == nil:
			// '-', or a letter pflag will report
		case f.NoOptDefVal != "":
			seen[f.Name] = !eq || switchOn(val)
		case eq:
			// option.c and ExpandGroups give the value after = to every
			// letter of the group
		case k == 0 && len(body) > 1:
			rest := body[1:]
			if letters := attachedMisreads(fs, f, rest, seen); letters != "" {
				return false, fmt.Errorf("%q: mdtest reads the letters of a value written against its option as options too, giving them the value (here %s): write %s",
					w, letters, spellings(fs, body[0], rest))
			}
			return false, nil
		default:
			rest := body[k+1:]
			if values := valueLetters(fs, rest); values != "" {
				return false, fmt.Errorf("%q: mdtest gives the next word to every value option of a group (here -%c, %s): write each as its own word with its own value",
					w, body[k], values)
			}
			if !cliflag.AllSwitches(fs, rest) {
				return false, fmt.Errorf("%q: mdtest gives -%c the next word, not %q, when it is not the first letter of a group: write %s -%c%s",
					w, body[k], rest, w[:k+1], body[k], rest)
			}
			next = true
		}
	}
	return next, nil
}

// attachedMisreads returns the letters of rest, the value written against
// value option f, whose option that option.c and ExpandGroups leave in a
// different state, each as -x, joined by ", ".
func attachedMisreads(fs *pflag.FlagSet, f *pflag.Flag, rest string, seen map[string]bool) string {
	cOn := cAtoi(rest) > 0                      // option.c sets each switch to atoi(rest)
	expandOn := numberThenSwitches(fs, f, rest) // ExpandGroups turns them on
	var letters []string
	for k := 0; k < len(rest); k++ {
		g := shortFlag(fs, rest[k])
		if g == nil || strings.IndexByte(rest[:k], rest[k]) >= 0 {
			continue
		}
		if g.NoOptDefVal == "" || cOn != (expandOn || seen[g.Name]) {
			letters = append(letters, "-"+rest[k:k+1])
		}
	}
	return strings.Join(letters, ", ")
}

// spellings returns the unambiguous ways to write option c with the
// value rest: "-c rest or -c=rest", and for a number followed by switches
// ("-n10F", which mdtest reads as -n 10 -F) first the number and the
// switches apart ("-n 10 -F").
func spellings(fs *pflag.FlagSet, c byte, rest string) string {
	both := fmt.Sprintf("-%c %s or -%c=%s", c, rest, c, rest)
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	// A k, m, g, t or p after the digits is mdtest's size suffix, not a
	// switch it meant.
	if tail := rest[digits:]; digits > 0 && tail != "" && !strings.ContainsRune("kKmMgGtTpP", rune(tail[0])) && cliflag.AllSwitches(fs, tail) {
		return fmt.Sprintf("-%c %s -%s for the number and the switches, or %s", c, rest[:digits], strings.ReplaceAll(tail, "-", ""), both)
	}
	return both
}

// numberThenSwitches reports whether ExpandGroups reads rest, the value of
// f, as a number, then '-', then switches ("-n10-F" is -n 10 -F).
func numberThenSwitches(fs *pflag.FlagSet, f *pflag.Flag, rest string) bool {
	switch f.Value.Type() {
	case "int", "size", "seconds":
	default:
		return false
	}
	for j := 1; j < len(rest); j++ {
		if rest[j] == '-' && cliflag.AllSwitches(fs, rest[j:]) && strings.Trim(rest[j:], "-") != "" {
			return true
		}
	}
	return false
}

// valueLetters returns the letters of s that are options taking a value,
// each as -x, joined by ", ".
func valueLetters(fs *pflag.FlagSet, s string) string {
	var letters []string
	for k := 0; k < len(s); k++ {
		if f := shortFlag(fs, s[k]); f != nil && f.NoOptDefVal == "" {
			letters = append(letters, "-"+s[k:k+1])
		}
	}
	return strings.Join(letters, ", ")
}

// switchOn reports whether a switch given the value v after = is on:
// option.c reads -D=0 as off (atoi), pflag reads false as off too.
func switchOn(v string) bool {
	switch strings.ToLower(v) {
	case "0", "false", "f":
		return false
	}
	return true
}

// shortFlag returns the flag of the short option c, or nil for a byte
// that names none (pflag's shorthands are ASCII).
func shortFlag(fs *pflag.FlagSet, c byte) *pflag.Flag {
	if c >= 0x80 || c == '-' {
		return nil
	}
	return fs.ShorthandLookup(string(c))
}

// cAtoi returns what C's atoi returns for s: optional leading white
// space, an optional sign, then the longest run of digits; 0 without
// digits. It saturates instead of overflowing.
func cAtoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for k := 0; k < len(s) && s[k] >= '0' && s[k] <= '9'; k++ {
		if n > (1<<62)/10 {
			break
		}
		n = n*10 + int64(s[k]-'0')
	}
	if neg {
		return -n
	}
	return n
}
