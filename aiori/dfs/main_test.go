package dfs

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain lets this package's test binary stand for hpcbench as the
// engine process a rank starts (EngineCommand): the sessions its tests open
// start os.Executable(), which is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == EngineCommand {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := ServeEngine(ctx, os.Args[2], os.Stdin, os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
