package io500

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestVerify checks IO500's own result.txt as io500 --verify does (the
// config hash of testdata/short.ini, the score hash of an invalid run),
// and refuses an edited score or another configuration.
func TestVerify(t *testing.T) {
	data, err := os.ReadFile("testdata/short.ini")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("short.ini", string(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile("testdata/c-result.txt")
	if err != nil {
		t.Fatal(err)
	}
	const ver = "io500-isc26_v2-26-g02091cf254d8"
	var b bytes.Buffer
	err = Verify(&b, c, ver, string(res))
	want := "result file ver = " + ver + "\n[run]\nconfig-hash     = ED0B1916\nscore-hash      = 27E8361\n\n[OK] But this is an invalid run!\n"
	if b.String() != want || err == nil || !strings.Contains(err.Error(), "INVALID") {
		t.Errorf("verify: %v\n%s\nwant:\n%s", err, b.String(), want)
	}
	edited := strings.Replace(string(res), "score           = 2.232666", "score           = 3.232666", 1)
	b.Reset()
	if err := Verify(&b, c, ver, edited); err == nil || !strings.Contains(b.String(), "ERROR: Score hash expected") {
		t.Errorf("edited score: %v\n%s", err, b.String())
	}
	other, err := ParseConfig("o.ini", "[global]\ndatadir = /x\n")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Verify(&b, other, ver, string(res)); err == nil || !strings.Contains(b.String(), "ERROR: Configuration hash expected") {
		t.Errorf("other config: %v\n%s", err, b.String())
	}
	// A valid run (its hash without valid=NO) verifies [OK].
	o, _ := loadCResult(t)
	o.RunInvalid = nil
	for i := range o.Phases {
		o.Phases[i].Invalid = nil
		o.Phases[i].Entries = nil
	}
	o.finish()
	var rt bytes.Buffer
	if err := WriteResultTxt(&rt, o); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Verify(&b, c, ver, rt.String()); err != nil || !strings.HasSuffix(b.String(), "\n[OK]\n") {
		t.Errorf("valid run: %v\n%s", err, b.String())
	}
}

func FuzzVerify(f *testing.F) {
	res, err := os.ReadFile("testdata/c-result.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(res))
	f.Add("[SCORE]\nSCORE = \v\nhash = 1\n[run]\nconfig-hash = 0\n")
	f.Add("[find]\nscore = x\n")
	c, err := ParseConfig("short.ini", "[global]\ndatadir = x\n")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, result string) {
		var b bytes.Buffer
		if err := Verify(&b, c, "v", result); err == nil && !strings.HasSuffix(b.String(), "\n[OK]\n") {
			t.Fatalf("no error, and no [OK]:\n%s", b.String())
		}
	})
}
