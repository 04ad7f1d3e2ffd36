package io500

import (
	"os"
	"testing"
)

// TestHashesMatchIO500 checks the config-hash and the -G seeds against a
// run of the IO500 application on testdata/short.ini started at
// 2026.12.06-13.38.50 (its result.txt: config-hash ED0B1916, ior-easy -G
// 1852249671, mdtest-easy -G -1556539831, ior-hard -G=1852260359,
// mdtest-hard -G=-1556529143).
func TestHashesMatchIO500(t *testing.T) {
	data, err := os.ReadFile("testdata/short.ini")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("short.ini", string(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := hashHex(c.Hash()); got != "ED0B1916" {
		t.Errorf("config-hash %s, want ED0B1916", got)
	}
	ts := "2026.12.06-13.38.50"
	for _, c := range []struct {
		phase string
		want  int32
	}{{"ior-easy", 1852249671}, {"mdtest-easy", -1556539831}, {"ior-hard", 1852260359}, {"mdtest-hard", -1556529143}} {
		if got := phaseSeed(c.phase, ts); got != c.want {
			t.Errorf("seed of %s: %d, want %d", c.phase, got, c.want)
		}
	}
}
