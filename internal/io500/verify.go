package io500

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hpcbench/hpcbench/report"
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
	if cfgHash == "" {
		fmt.Fprintf(w, "result file ver = %s\n", ver)
		return fmt.Errorf("the result file holds no config-hash")
	}
	v := &report.IO500Verification{FileVersion: ver, Version: version, ConfigHash: cfgHash, ScoreHash: scoreHash,
		WantConfig: hashHex(c.Hash()), WantScore: hashHex(h), InvalidRun: hashHex(hashKeyVal(h, "valid", "NO")) == scoreHash}
	if err := report.WriteIO500Verification(w, v); err != nil {
		return err
	}
	var bad []string
	if v.ConfigHash != v.WantConfig {
		bad = append(bad, "the configuration is not the one the run used")
	}
	switch {
	case v.ScoreHash == v.WantScore:
	case v.InvalidRun:
		bad = append(bad, "the run is INVALID")
	default:
		bad = append(bad, "the scores do not match their hash (the file was edited)")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
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
