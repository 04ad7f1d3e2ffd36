package io500

import (
	"os"
	"strings"
	"testing"
)

// TestArgvMatchesIO500 checks every phase's command line against the
// "exe =" lines of the IO500 application's result.txt for
// testdata/short.ini, run at 2026.12.06-13.38.50.
func TestArgvMatchesIO500(t *testing.T) {
	data, err := os.ReadFile("testdata/short.ini")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("short.ini", string(data))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/c-exe.golden")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, "2026.12.06-13.38.50")
	var got []string
	for i := range standardPhases {
		if a := p.Argv(&standardPhases[i]); a != nil {
			got = append(got, "exe             = "+strings.Join(a, " "))
		}
	}
	wl := strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(got) != len(wl) {
		t.Fatalf("%d command lines, IO500 has %d", len(got), len(wl))
	}
	for i := range wl {
		if got[i] != wl[i] {
			t.Errorf("phase %d:\n got %s\nwant %s", i, got[i], wl[i])
		}
	}
}

func TestPlanDirsAndAPI(t *testing.T) {
	c, err := ParseConfig("c.ini", "[global]\ndatadir = /d\nresultdir = /r\napi = DFS --dfs.pool=p --dfs.cont=c\n[ior-hard-read]\nAPI = POSIX --posix.odirect\n")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(c, "TS")
	if p.DataDir != "/d/TS" || p.ResultDir != "/r/TS" {
		t.Errorf("dirs %s %s, want timestamped ones", p.DataDir, p.ResultDir)
	}
	var ihr, ihw string
	for i := range standardPhases {
		switch standardPhases[i].Name {
		case "ior-hard-read":
			ihr = strings.Join(p.Argv(&standardPhases[i]), " ")
		case "ior-hard-write":
			ihw = strings.Join(p.Argv(&standardPhases[i]), " ")
		}
	}
	if !strings.Contains(ihw, "-a DFS --dfs.pool=p --dfs.cont=c") || !strings.Contains(ihr, "-a POSIX --posix.odirect") {
		t.Errorf("API: write %q, read %q", ihw, ihr)
	}
}
