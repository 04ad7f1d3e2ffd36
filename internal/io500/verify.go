package io500

import (
	"fmt"
	"io"
	"strings"
)

// Verdicts of Verify.
const (
	VerifyOK      = "[OK]"
	VerifyInvalid = "[OK] But this is an invalid run!"
)

// Verify checks a result.txt against the configuration c, as `io500 INI
// --verify result.txt` does: the config-hash it holds must be c's, and the
// score-hash must be the hash of its version, phase scores, MD, BW and
// SCORE as written (with valid=NO for an invalid run). It writes IO500's
// report to w and returns nil for a valid run whose hashes match, and an
// error saying what failed otherwise (an invalid run whose hashes match
// included).
func Verify(w io.Writer, c *Config, version, result string) error {
	var cfgHash, scoreHash, ver string
	var h uint32
	section := ""
	for _, line := range strings.Split(result, "\n") {
		if m := reSection.FindStringSubmatch(line); m != nil {
			section = m[1]
			continue
		}
		m := reKey.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, val := m[1], strings.TrimRight(m[2], " \t\r")
		if val == "" {
			continue
		}
		switch {
		case key == "version":
			ver = val
			h = hashKeyVal(h, key, val)
		case key == "config-hash":
			cfgHash = val
		case section == "SCORE" && key == "SCORE":
			// "14.922606 [INVALID]": the number alone.
			if f := strings.Fields(val); len(f) > 0 {
				h = hashKeyVal(h, key, f[0])
			}
		case section == "SCORE" && key == "hash":
			scoreHash = val
		case section == "SCORE":
			h = hashKeyVal(h, key, val)
		case key == "score" && scoredPhase(section):
			h = hashKeyVal(h, section, val)
		}
	}
	fmt.Fprintf(w, "result file ver = %s\n", ver)
	if ver != version {
		fmt.Fprintf(w, "WARNING: Verify the output with the matching version of the benchmark (this is %s).\n", version)
	}
	fmt.Fprintf(w, "[run]\n")
	pairLine(w, "config-hash", cfgHash)
	pairLine(w, "score-hash", scoreHash)
	if cfgHash == "" {
		return fmt.Errorf("the result file holds no config-hash")
	}
	var bad []string
	if want := hashHex(c.Hash()); want != cfgHash {
		fmt.Fprintf(w, "ERROR: Configuration hash expected: %s read: %s\n", want, cfgHash)
		bad = append(bad, "the configuration is not the one the run used")
	}
	if got := hashHex(h); got != scoreHash {
		if hashHex(hashKeyVal(h, "valid", "NO")) == scoreHash {
			fmt.Fprintf(w, "\n%s\n", VerifyInvalid)
			bad = append(bad, "the run is INVALID")
		} else {
			fmt.Fprintf(w, "\nERROR: Score hash expected: %q read: %q\n", got, scoreHash)
			bad = append(bad, "the scores do not match their hash (the file was edited)")
		}
	}
	if len(bad) == 0 {
		fmt.Fprintf(w, "\n%s\n", VerifyOK)
		return nil
	}
	return fmt.Errorf("%s", strings.Join(bad, "; "))
}

// scoredPhase reports whether the phase named counts in the score (its
// score is in the score-hash).
func scoredPhase(name string) bool {
	for _, p := range standardPhases {
		if p.Name == name {
			return p.Group != noScore
		}
	}
	return false
}
