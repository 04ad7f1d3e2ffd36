package enginetest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/engine"
)

// Main is the TestMain of a package whose tests start engine processes:
// run as one (engine.ChildCommand DIR), the test binary serves the pool
// in DIR as hpcbench does, until its stdin ends or SIGINT or SIGTERM, and
// exits 1 if the engine failed; otherwise it runs the tests. It does not
// return.
func Main(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == engine.ChildCommand {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := engine.ServeChild(ctx, os.Args[2], os.Stdin, os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
