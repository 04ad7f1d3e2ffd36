package main

import (
	"context"
	"io"
)

func runWireup(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return usagef("wireup: not built yet")
}
