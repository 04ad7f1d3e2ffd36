package cliflag

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// ExpandGroups rewrites a command line the way IOR 4's option parser
// (src/option.c, option_parse_token) reads it into words pflag reads the
// same way: every option of fs comes out as --name or --name=value. It
// exists because pflag and option.c differ on single-dash words:
//
//   - a word is a group of short options: "-wrk", "-vvv";
//   - a '-' inside a group is skipped, so "-z-k" is -z -k (IOR's
//     testing/complex-tests.sh has it);
//   - a value after '=' goes to every option of the group: "-F=0",
//     "-b=4m", "-wr=1";
//   - an option that takes a value, first in its group, takes the rest of
//     the word ("-b4m", "-i1"), and a number option the digits before a
//     '-' that switches follow ("-s10-z" is -s 10 -z); later in its
//     group, followed only by switches, it takes the next word ("-wb 4m",
//     "-wbk 4m"), and so does a long option without '=' ("--summaryFile
//     x"), even a next word that starts with '-' ("-X -13").
//
// Where option.c misreads, the reading here is the one a user means, or
// an error naming the word: option.c also reads the letters of a value as
// switches ("-t100k" sets -k, "-b4m" sets -m), which is not done; for a
// value option later in its group followed by more than switches
// ("-wb4m") it takes the next word, where here the rest is the value; it
// ignores letters that name no option when another letter of the group
// does ("-wq"), which pflag reports; it gives one value to two value
// options of a group ("-wbt 4m"), where here -b gets "t" and rejects it.
//
// Words that are not options are passed through for pflag, and so is
// everything from "--" on.
func ExpandGroups(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			return append(out, args[i:]...), nil
		case w == "-help" && fs.Lookup("help") != nil:
			// option.c reads it as the group -h -e -l -p; every hpcbench
			// command takes it as a request for help, as Hydra does.
			out = append(out, "--help")
		case !strings.HasPrefix(w, "-") || w == "-":
			out = append(out, w)
		case strings.HasPrefix(w, "--"):
			name, _, eq := strings.Cut(w[2:], "=")
			if f := fs.Lookup(name); f != nil && !eq && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				w = "--" + name + "=" + args[i]
			}
			out = append(out, w)
		default:
			next := ""
			if i+1 < len(args) {
				next = args[i+1]
			}
			words, usedNext, err := expandGroup(fs, w, next, i+1 < len(args))
			if err != nil {
				return nil, err
			}
			out = append(out, words...)
			if usedNext {
				i++
			}
		}
	}
	return out, nil
}

// expandGroup rewrites one single-dash word; next is the word after it
// (hasNext false at the end of the line). It reports whether next was
// taken as a value.
func expandGroup(fs *pflag.FlagSet, w, next string, hasNext bool) (words []string, usedNext bool, err error) {
	body, value, eq := strings.Cut(w[1:], "=")
	if body == "" {
		return nil, false, fmt.Errorf("bad option syntax %q", w)
	}
	for i, r := range body {
		if r == '-' {
			continue
		}
		if r >= utf8.RuneSelf {
			return nil, false, fmt.Errorf("unknown option %q in %q", "-"+string(r), w)
		}
		f := fs.ShorthandLookup(string(r))
		switch {
		case f == nil:
			// pflag names the unknown letter (and the caller's hook
			// may explain it).
			words = append(words, "-"+string(r))
		case eq:
			words = append(words, "--"+f.Name+"="+value)
		case f.NoOptDefVal != "":
			words = append(words, "--"+f.Name)
		case i == 0 && len(body) > 1:
			return appendValue(fs, words, f, body[1:]), false, nil
		case !hasNext && AllSwitches(fs, body[i+1:]):
			return nil, false, fmt.Errorf("-%s: needs a value", f.Shorthand)
		default:
			if rest := body[i+1:]; !AllSwitches(fs, rest) {
				// option.c would take the next word and read rest's
				// letters as switches; no such line runs under IOR.
				return appendValue(fs, words, f, rest), false, nil
			}
			words = append(words, "--"+f.Name+"="+next)
			usedNext = true
		}
	}
	return words, usedNext, nil
}

// appendValue appends f given the value rest, the end of a word. A
// number followed by switches in the same word ("-s10-z", "-X-13-k") is
// the number, then the switches, as option.c reads it (its number parser
// stops at the '-', and the letters after it are switches); a value that
// is not a number is all of rest (a path may hold "-k").
func appendValue(fs *pflag.FlagSet, words []string, f *pflag.Flag, rest string) []string {
	switch f.Value.Type() {
	case "int", "size", "seconds":
		for j := 1; j < len(rest); j++ {
			if rest[j] == '-' && AllSwitches(fs, rest[j:]) && strings.Trim(rest[j:], "-") != "" {
				words = append(words, "--"+f.Name+"="+rest[:j])
				for _, r := range rest[j:] {
					if r != '-' {
						words = append(words, "--"+fs.ShorthandLookup(string(r)).Name)
					}
				}
				return words
			}
		}
	}
	return append(words, "--"+f.Name+"="+rest)
}

// AllSwitches reports whether every letter of s (ignoring '-') is a
// switch of fs, an option that takes no value.
func AllSwitches(fs *pflag.FlagSet, s string) bool {
	for _, r := range s {
		if r == '-' {
			continue
		}
		if r >= utf8.RuneSelf {
			return false
		}
		f := fs.ShorthandLookup(string(r))
		if f == nil || f.NoOptDefVal == "" {
			return false
		}
	}
	return true
}
