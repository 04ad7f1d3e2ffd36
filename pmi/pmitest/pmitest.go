// Package pmitest runs a real pmi.Server inside a test so that several
// in-process "ranks" (goroutines) can bootstrap through PMI as separate
// processes would.
package pmitest

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/pmi"
)

// Job starts a PMI server for size ranks and returns one Getenv function
// per rank, for pmi.ClientOptions.Getenv: each names a duplicate of that
// rank's socketpair end as PMI_FD. The server runs until the test ends; its
// error, if any, fails the test unless the test has already failed.
func Job(t testing.TB, size int) []func(string) (string, bool) {
	t.Helper()
	srv, err := pmi.NewServer(pmi.ServerConfig{Engine: pmi.EngineConfig{
		Size:           size,
		KVSName:        "kvs_pmitest",
		ProcessMapping: "(vector,(0,1," + strconv.Itoa(size) + "))",
	}})
	if err != nil {
		t.Fatalf("pmitest: %v", err)
	}
	envs := make([]func(string) (string, bool), size)
	for r := range size {
		// The client closes the fd it is given; give it a duplicate so
		// the server's own file is closed exactly once.
		fd, err := syscall.Dup(int(srv.ClientFile(r).Fd()))
		if err != nil {
			t.Fatalf("pmitest: dup: %v", err)
		}
		srv.CloseClientFile(r)
		env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": strconv.Itoa(r), "PMI_SIZE": strconv.Itoa(size)}
		envs[r] = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			cancel()
			err = <-done
			if err == context.Canceled {
				err = nil // ranks that never finalized are the test's business
			}
		}
		cancel()
		if err != nil && !t.Failed() {
			t.Errorf("pmitest: server: %v", err)
		}
	})
	return envs
}
