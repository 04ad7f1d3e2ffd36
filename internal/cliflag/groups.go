package cliflag

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// SplitGroups rewrites args, a command line for fs, into one option per
// argument the way IOR's src/option.c (the parser IOR and mdtest share)
// reads short options, so that pflag then sees what the C tools see:
//
//   - a group of switches, "-FCr", is each of them; "-uF=1" gives the
//     value after = to every letter of the group, as option.c does;
//   - a letter that takes a value takes the rest of the group when it is
//     the group's first letter ("-n100"), and otherwise the next argument
//     ("-Fn 100" is -F -n 100); when several do, option.c gives each the
//     same next argument, and so does SplitGroups;
//   - "-n=100" and "--name=value" take the value after =, and "--name
//     value" the next argument (which is then copied as it is);
//   - "--" ends the options: it and what follows are copied as they are,
//     as is anything else that is not an option, for pflag to judge.
//
// Where option.c would misread what a user surely meant, SplitGroups
// returns an error naming the argument and the unambiguous spelling:
// option.c goes on reading the letters of an attached value as options,
// giving each the value ("-n1k" would also turn on -k, "-aPOSIX" would
// set -I to "POSIX"; see misreadLetters for those that change nothing, as
// in "-aDUMMY"), and a value letter after the first takes the next
// argument even when the group continues with digits ("-Fn100" gives -n
// the next argument, not 100).
// Letters fs does not know are passed on, one per argument, so that pflag
// reports the first of them.
func SplitGroups(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	seen := map[string]bool{} // the flags set so far, by name
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--"):
			out = append(out, a)
			name, _, hasEq := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil {
				seen[f.Name] = true
			}
			if f := fs.Lookup(name); f != nil && !hasEq && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		case len(a) < 2 || a[0] != '-':
			out = append(out, a)
			continue
		}
		split, next, err := splitGroup(fs, a, i+1 < len(args), seen)
		if err != nil {
			return nil, err
		}
		if next {
			i++ // every value letter of the group takes the next argument
		}
		for _, s := range split {
			if s == nextArg {
				s = args[i]
			} else if f := shortFlag(fs, s); f != nil {
				seen[f.Name] = true
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// nextArg marks, in splitGroup's result, where the next argument goes (as
// an argument of its own: pflag gives a short option the next argument
// whatever it holds, "", "-1" or "-F", as option.c does).
const nextArg = "\x00next"

// letterKind says how fs takes the short option c: unknown, a switch
// (a NoOptDefVal), or a value.
// -h counts as unknown but alone: option.c knows it only as the whole
// argument "-h".
func letterKind(fs *pflag.FlagSet, c byte) (known, switchLike bool) {
	if c >= 0x80 {
		return false, false // pflag's shorthands are ASCII
	}
	f := fs.ShorthandLookup(string(c))
	if f == nil || f.Name == "help" {
		return false, false
	}
	return true, f.NoOptDefVal != ""
}

// splitGroup splits one short-option argument a ("-FCn", "-n100",
// "-uF=1") into one option per letter. A letter that takes the next
// argument is followed by nextArg, and next reports that the group takes
// it; other values are attached with =.
func splitGroup(fs *pflag.FlagSet, a string, haveNext bool, seen map[string]bool) (split []string, next bool, err error) {
	body, val, hasEq := strings.Cut(a[1:], "=")
	if body == "" {
		return []string{a}, false, nil // "-=x": pflag's syntax error
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		known, sw := letterKind(fs, c)
		opt := "-" + string(c)
		switch {
		case !known:
			if c >= 0x80 {
				// Not a letter option.c could know; let pflag name the
				// whole rune.
				return append(split, "-"+body[k:]), false, nil
			}
			split = append(split, opt)
		case hasEq && val == "" && !sw:
			return nil, false, fmt.Errorf("%q: %s needs a value after =", a, opt)
		case hasEq && val == "":
			split = append(split, opt) // option.c counts a switch up
		case hasEq:
			split = append(split, opt+"="+val)
		case sw:
			split = append(split, opt)
		case k == 0 && len(body) > 1:
			rest := body[1:]
			if letters := misreadLetters(fs, rest, seen); letters != "" {
				return nil, false, fmt.Errorf("%q: mdtest and IOR read the letters of a value written against its option as options too (here %s): write %s %s or %s=%s",
					a, letters, opt, rest, opt, rest)
			}
			return append(split, opt+"="+rest), false, nil
		default:
			if rest := body[k+1:]; !allOptions(fs, rest) {
				return nil, false, fmt.Errorf("%q: mdtest and IOR give %s the next argument, not %q, when it is not the first letter of a group: write %s %s%s",
					a, opt, rest, a[:k+1], opt, rest)
			}
			split = append(split, opt)
			if haveNext {
				split = append(split, nextArg)
				next = true
			}
		}
	}
	return split, next, nil
}

// allOptions reports whether every byte of s is a short option of fs.
func allOptions(fs *pflag.FlagSet, s string) bool {
	for k := 0; k < len(s); k++ {
		if known, _ := letterKind(fs, s[k]); !known {
			return false
		}
	}
	return true
}

// misreadLetters returns the letters of s, the value written against an
// option, that option.c would read as options with an effect, each as -x,
// joined by ", "; "" when there are none. option.c gives each letter of s
// that it knows s itself: a letter that takes a value would get s, and a
// switch would be set to C's atoi(s) (at least 0), which changes it when
// that is not 0 or when the command line set it before. A switch set to
// 0 that nothing set ("-aDUMMY": -D, -U, -Y) and unknown letters change
// nothing, as in option.c.
func misreadLetters(fs *pflag.FlagSet, s string, seen map[string]bool) string {
	var letters []string
	set := cAtoi(s) > 0
	for k := 0; k < len(s); k++ {
		known, sw := letterKind(fs, s[k])
		if !known || strings.Contains(s[:k], s[k:k+1]) {
			continue
		}
		if !sw || set || seen[fs.ShorthandLookup(s[k:k+1]).Name] {
			letters = append(letters, "-"+s[k:k+1])
		}
	}
	return strings.Join(letters, ", ")
}

// shortFlag returns the flag of a split short option, "-x" or "-x=v", or
// nil.
func shortFlag(fs *pflag.FlagSet, s string) *pflag.Flag {
	if len(s) < 2 || s[0] != '-' || s[1] == '-' || s[1] >= 0x80 || (len(s) > 2 && s[2] != '=') {
		return nil
	}
	return fs.ShorthandLookup(s[1:2])
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
