package progress_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/internal/units"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestLinesGolden: with Options.Lines on a writer that is not a terminal,
// a plain line every interval (10 s by default) from the first phase on:
// an IOR write and read in bytes, an mdtest phase in operations, a
// fabric size whose total is not known, and a phase that stalls (the same
// figures, its rate falling to 0). The fake clock makes the lines exact.
func TestLinesGolden(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	clock := newFakeClock()
	bar := progress.NewWriter(&out, false, progress.Options{Clock: clock, Lines: true})
	if !bar.Shows() {
		t.Fatal("a Bar with Lines does not show progress off a terminal")
	}
	// Each second ends with the clock's tick, if one is due, drawn: the
	// figures the line shows are those reported up to that second.
	elapsed := time.Duration(0)
	tickDrawn := func() {
		elapsed += time.Second
		lines := strings.Count(out.String(), "\n")
		clock.Advance(time.Second)
		if elapsed%progress.DefaultLineInterval != 0 || elapsed < 20*time.Second {
			return // no tick, or no phase yet
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(out.String(), "\n") == lines {
			if time.Now().After(deadline) {
				t.Fatalf("no line at %v; so far:\n%s", elapsed, out.String())
			}
			time.Sleep(time.Millisecond)
		}
	}
	second := func(n int, report func(s int)) {
		for s := 1; s <= n; s++ {
			report(s)
			tickDrawn()
		}
	}
	for range 15 {
		tickDrawn() // before the first phase: no line
	}
	bar.Phase("write", 0, 0, units.GiB)
	second(25, func(s int) { bar.Phase("write", 0, int64(s)*40*units.MiB, units.GiB) })
	bar.Phase("read", 0, 0, units.GiB)
	second(12, func(s int) { bar.Phase("read", 0, min(int64(s)*100*units.MiB, units.GiB), units.GiB) })
	bar.Phase("file creation", 1, 0, 100000)
	second(20, func(s int) { bar.Phase("file creation", 1, min(int64(s)*2500, 30000), 100000) }) // stalls at 30000
	bar.Phase("PingPong 1024 B", 0, 0, 0)
	second(10, func(s int) { bar.Phase("PingPong 1024 B", 0, int64(s)*50000, 0) })
	bar.Close()
	testenv.Golden(t, "testdata/lines.golden", []byte(out.String()), *update)
}

// TestLinesHeldMidLine: a line that comes due while output through Stdout
// is in the middle of a line waits for that line's end (stdout and
// stderr may be one file), and the output passes through unchanged.
func TestLinesHeldMidLine(t *testing.T) {
	t.Parallel()
	var both syncBuffer // stdout and the lines in one file, as 2>&1
	clock := newFakeClock()
	bar := progress.NewWriter(&both, false, progress.Options{Clock: clock, Lines: true, LineInterval: time.Second})
	stdout := bar.Stdout(&both)
	bar.Phase("write", 0, 1, 2)
	io.WriteString(stdout, "write     ")
	clock.Advance(time.Second) // due now, held
	clock.Advance(time.Second) // due again, still held
	io.WriteString(stdout, "1024.00\n")
	io.WriteString(stdout, "read      2048.00\n")
	bar.Close()
	// The second tick's line may come before or after the last result
	// line (Advance returns once the tick is taken, not drawn): every
	// line is a whole result or a whole progress line.
	var results []string
	progressLines := 0
	for _, l := range strings.Split(strings.TrimSuffix(both.String(), "\n"), "\n") {
		if strings.HasPrefix(l, progress.LinePrefix+"write iter 0: 1 B of 2 B (50%)") {
			progressLines++
		} else {
			results = append(results, l)
		}
	}
	if strings.Join(results, "|") != "write     1024.00|read      2048.00" || progressLines == 0 || progressLines > 2 {
		t.Errorf("output is\n%s\nwant the two result lines whole and one or two progress lines", both.String())
	}
}
