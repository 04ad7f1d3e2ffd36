package progress_test

import (
	"fmt"
	"os"

	"github.com/hpcbench/hpcbench/internal/progress"
)

// A run's rank 0 makes the bar on stderr, lets the engine report its
// phases, sends the results through Stdout and closes the bar at the end.
// Here stderr is not a terminal (go test captures it), so the bar draws
// nothing and Stdout is os.Stdout itself.
func Example() {
	bar := progress.New(os.Stderr, progress.Options{})
	defer bar.Close()
	stdout := bar.Stdout(os.Stdout)

	const total = 4 << 20
	for done := int64(0); done <= total; done += 1 << 20 {
		bar.Phase("write", 0, done, total)
	}
	fmt.Fprintln(stdout, "write      1024.00 MiB/s")
	// Output: write      1024.00 MiB/s
}
