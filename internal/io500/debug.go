package io500

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// dropCacheTimeout bounds [global] drop-caches-cmd.
const dropCacheTimeout = 5 * time.Minute

// dropCaches runs [global] drop-caches-cmd through the shell on this rank,
// as IO500 does before each phase with drop-caches = TRUE; a failure is a
// warning on stderr, as IO500's.
func dropCaches(ctx context.Context, cmd string, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, dropCacheTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	c.Stdout, c.Stderr = stderr, stderr
	if err := c.Run(); err != nil {
		fmt.Fprintf(stderr, "WARNING: [global] drop-caches-cmd %q: %v\n", cmd, err)
	}
}

// pauseCheck is how often a pause file is looked for.
const pauseCheck = time.Second

// pause waits while the file path exists ([debug] pause-dir: a file named
// after the phase holds the run before it), or until ctx ends.
func pause(ctx context.Context, path string) error {
	for {
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		t := time.NewTimer(pauseCheck)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}
