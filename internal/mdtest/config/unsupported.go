package config

import (
	"sort"

	"github.com/hpcbench/hpcbench/internal/cliflag"
)

// Unsupported returns mdtest's options that hpcbench refuses, each with
// its reason, short options first, for the help. It reads the same tables
// the parser refuses them from.
func Unsupported() []cliflag.Refusal {
	var out []cliflag.Refusal
	letters := make([]byte, 0, len(unsupportedShort))
	for c := range unsupportedShort {
		letters = append(letters, c)
	}
	sort.Slice(letters, func(i, j int) bool { return letters[i] < letters[j] })
	for _, c := range letters {
		out = append(out, cliflag.Refusal{Names: []string{"-" + string(c)}, Why: unsupportedShort[c]})
	}
	names := make([]string, 0, len(unsupportedLong))
	for n := range unsupportedLong {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, cliflag.Refusal{Names: []string{"--" + n}, Why: unsupportedLong[n] + ": not supported by hpcbench"})
	}
	return out
}
