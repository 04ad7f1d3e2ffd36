package progress_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/progress"
	"github.com/hpcbench/hpcbench/internal/units"
)

// TestDemoEngine runs a fake engine under a pseudo-terminal that is both
// stderr and stdout, as in a shell: two iterations of a write and a read
// phase of 16 steps of 1 MiB, one tick of the clock a step, each phase
// ending with a result line on stdout, as IOR streams them. The terminal
// shows the bar from the delay on, the result lines intact above it, and
// at the end only the results.
func TestDemoEngine(t *testing.T) {
	t.Parallel()
	const steps = 16
	term := openTerminal(t)
	clock := newFakeClock()
	bar := progress.New(term.tty, progress.Options{Clock: clock})
	stdout := bar.Stdout(term.tty)

	var results []string
	for iter := range 2 {
		for _, phase := range []string{"write", "read"} {
			for step := int64(1); step <= steps; step++ {
				bar.Phase(phase, iter, step*units.MiB, steps*units.MiB)
				clock.Advance(progress.DefaultInterval)
				if iter == 0 && phase == "write" && step < 10 {
					// 9 ticks of 200 ms: under the 2 s delay.
					if got := term.out.String(); got != "" {
						t.Fatalf("at step %d, before the delay, the terminal got %q", step, got)
					}
				}
				if step == 12 {
					want := fmt.Sprintf("%s iter %d ", phase, iter)
					lines := term.waitFor(t, want+"at 12 of 16 MiB", func(lines []string) bool {
						l := lines[len(lines)-1]
						return strings.Contains(l, want) && strings.Contains(l, "12.0 MiB/16.0 MiB") && strings.Contains(l, "75%")
					})
					checkScreen(t, lines, results, want)
				}
			}
			// The result line goes out in two writes with a redraw
			// between, which must not draw the bar inside the line.
			line := fmt.Sprintf("%-6s %d %10.2f MiB/s", phase, iter, 1000.0+float64(len(results)))
			if _, err := io.WriteString(stdout, line[:9]); err != nil {
				t.Fatalf("write result: %v", err)
			}
			clock.Advance(progress.DefaultInterval)
			if _, err := io.WriteString(stdout, line[9:]+"\n"); err != nil {
				t.Fatalf("write result: %v", err)
			}
			results = append(results, line)
		}
	}
	clock.Advance(progress.DefaultInterval)
	lines := term.waitFor(t, "the results and the last phase at 100%", func(lines []string) bool {
		l := lines[len(lines)-1]
		return len(lines) == len(results)+1 && strings.Contains(l, "read iter 1 ") && strings.Contains(l, "100%")
	})
	checkScreen(t, lines, results, "read iter 1 ")

	bar.Close()
	lines = screen(term.finish(t))
	if got, want := strings.Join(lines, "\n"), strings.Join(results, "\n")+"\n"; got != want {
		t.Errorf("after Close the terminal shows\n%s\nwant\n%s", got, want)
	}
}

// checkScreen checks that the terminal shows the result lines written so
// far, each intact, with the bar of phase want on the line below them.
func checkScreen(t *testing.T, lines, results []string, want string) {
	t.Helper()
	if len(lines) != len(results)+1 {
		t.Fatalf("terminal shows %d lines, want %d results and the bar:\n%s", len(lines), len(results), strings.Join(lines, "\n"))
	}
	for i, r := range results {
		if lines[i] != r {
			t.Errorf("terminal line %d is %q, want the result %q", i+1, lines[i], r)
		}
	}
	if bar := lines[len(results)]; !strings.HasPrefix(bar, want) || !eta.MatchString(bar) {
		t.Errorf("last line %q is not the bar of %q with its times", bar, want)
	}
}
