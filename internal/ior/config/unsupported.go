package config

import (
	"errors"
	"sort"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// Unsupported returns IOR's short options that hpcbench refuses, grouped
// by reason and ordered by their first letter, for the help. It reads the
// same table the parser refuses them from.
func Unsupported() []cliflag.Refusal {
	letters := make([]byte, 0, len(unsupportedShort))
	for c := range unsupportedShort {
		letters = append(letters, c)
	}
	sort.Slice(letters, func(i, j int) bool { return letters[i] < letters[j] })
	var out []cliflag.Refusal
	group := map[string]int{} // why -> index in out
	var names = map[string][]string{}
	for _, c := range letters {
		u := unsupportedShort[c]
		i, ok := group[u.why]
		if !ok {
			i = len(out)
			group[u.why] = i
			out = append(out, cliflag.Refusal{Why: u.why})
		}
		out[i].Names = append(out[i].Names, "-"+string(c))
		names[u.why] = append(names[u.why], u.name)
	}
	for i := range out {
		out[i].Why = "IOR's " + strings.Join(names[out[i].Why], ", ") + ": " + out[i].Why
	}
	return out
}

// notImplemented refuses, before any I/O, the combinations of IOR options
// hpcbench parses but does not implement, rather than ignoring them, with
// the reason.
func notImplemented(o *Options) error {
	switch {
	case o.SummaryAlways && o.Verbose > 0:
		// At -v 0 IOR prints nothing for it either (PrintLongSummaryHeader
		// and PrintShortSummary return), so it runs as IOR runs it.
		return errors.New("-O summaryAlways with -v: not supported: IOR then prints each test's summary rows " +
			"after the test instead of its Max Write/Read lines; hpcbench prints them at the end (drop one of the two)")
	}
	return nil
}
