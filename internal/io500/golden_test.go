package io500

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// loadCResult reads the IO500 application's result.txt into an Outcome,
// the phases' t_start, exe, own lines, score, t_delta and t_end, as
// written.
func loadCResult(t *testing.T) (*Outcome, string) {
	t.Helper()
	data, err := os.ReadFile("testdata/c-result.txt")
	if err != nil {
		t.Fatal(err)
	}
	loc := time.Local
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	o := &Outcome{Verbosity: 1}
	var cur *PhaseResult
	var want strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "[") {
			cur = nil
			for _, ph := range standardPhases {
				if "["+ph.Name+"]" == line {
					o.Phases = append(o.Phases, PhaseResult{phase: ph})
					cur = &o.Phases[len(o.Phases)-1]
				}
			}
		}
		want.WriteString(line + "\n")
		k, v, _ := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(line, "["):
		case strings.HasPrefix(line, "; START "):
			o.Start = at(strings.TrimPrefix(line, "; START "))
		case strings.HasPrefix(line, "; END "):
			o.End = at(strings.TrimPrefix(line, "; END "))
		case strings.HasPrefix(line, "; ERROR INVALID "):
			why := Reason{IO500: strings.TrimPrefix(line, "; ERROR INVALID ")}
			if cur == nil {
				o.RunInvalid = append(o.RunInvalid, why)
			} else {
				cur.invalid(why)
			}
		case k == "procs":
			o.Procs, _ = strconv.Atoi(v)
		case k == "version":
			o.Version = v
		case k == "config-hash":
			h, _ := strconv.ParseUint(v, 16, 32)
			o.ConfigHash = uint32(h)
		case k == "result-dir":
			o.ResultDir = v
		case cur == nil || k == "":
		case k == "t_start":
			cur.Start = at(v)
		case k == "t_end":
			cur.End = at(v)
		case k == "exe":
			cur.Exe = v
		case k == "score":
			cur.Score, _ = strconv.ParseFloat(v, 64)
		case k == "t_delta":
			cur.Seconds, _ = strconv.ParseFloat(v, 64)
		default:
			cur.pair(k, v)
		}
	}
	o.finish()
	return o, want.String()
}

// TestResultTxtMatchesIO500 writes result.txt from the IO500
// application's own run and compares byte for byte.
func TestResultTxtMatchesIO500(t *testing.T) {
	o, want := loadCResult(t)
	var b bytes.Buffer
	if err := WriteResultTxt(&b, o); err != nil {
		t.Fatal(err)
	}
	// hpcbench's result.txt is IO500's with the plain reasons added at
	// the top of [run] (IO500's own reasons have none here: the file
	// gave only their IO500 words).
	var kept []string
	added := 0
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if strings.HasPrefix(l, "invalid-") {
			added++
			continue
		}
		kept = append(kept, l)
	}
	if n := len(o.reasons()); added != n {
		t.Errorf("%d invalid-N lines, want one per reason (%d)", added, n)
	}
	got := strings.Join(kept, "")
	if got != want {
		t.Errorf("result.txt differs from IO500's:\n%s\nwant:\n%s", got, want)
	}
}

// TestSummaryGolden checks result_summary.txt (the console's lines, the
// plain-words verdict first) of a short, invalid run.
func TestSummaryGolden(t *testing.T) {
	o, _ := loadCResult(t)
	// The plain words come from the checks themselves.
	o.RunInvalid = []Reason{invalidStonewall(2, 300)}
	for i := range o.Phases {
		o.Phases[i].Invalid = nil
		(&Benchmark{}).check(&Plan{Stonewall: 2, MinWrite: 300}, &o.Phases[i])
	}
	o.finish()
	var b bytes.Buffer
	if err := WriteSummary(&b, o); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/summary.golden", b.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, got)
	}
}
