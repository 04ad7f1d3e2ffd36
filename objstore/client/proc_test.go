package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/client"
	"github.com/hpcbench/hpcbench/objstore/engine"
	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
	"github.com/hpcbench/hpcbench/objstore/transport"
)

// engineEnv, when set, makes the test binary an engine process serving a
// memobj pool over shm: it prints its address, then "entered" each time
// a Get of dkey "block" starts (which never ends), until it is killed.
const engineEnv = "HPCBENCH_RPC_TEST_ENGINE"

// clientEnv, when set to an engine's address, makes the test binary a
// client process that opens containers "a" and "b" there, prints
// "ready" and waits to be killed.
const clientEnv = "HPCBENCH_RPC_TEST_CLIENT"

func TestMain(m *testing.M) {
	run := runEngine
	switch {
	case os.Getenv(clientEnv) != "":
		run = runClient
	case os.Getenv(engineEnv) == "":
		os.Exit(m.Run())
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rpc test child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runClient is the child client's life: it ends when stdin does.
func runClient() error {
	tr, err := transport.SHM()
	if err != nil {
		return err
	}
	ctx := context.Background()
	c, err := client.Dial(ctx, tr, os.Getenv(clientEnv), client.ClientOptions{Rank: 1})
	if err != nil {
		return err
	}
	for _, l := range []string{"a", "b"} {
		if _, err := c.OpenCont(ctx, l); err != nil {
			return err
		}
	}
	fmt.Println("ready")
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// runEngine is the child engine's life.
func runEngine() error {
	tr, err := transport.SHM()
	if err != nil {
		return err
	}
	ctx := context.Background()
	l, err := tr.Listen(ctx, 0)
	if err != nil {
		return err
	}
	pool := &blockingPool{Pool: memobj.NewPool(), entered: make(chan struct{}), release: make(chan struct{})}
	fmt.Println(l.Addr())
	serve := make(chan error, 1)
	go func() { serve <- engine.Serve(ctx, l, pool, engine.ServerOptions{Alloc: tr}) }()
	for {
		select {
		case <-pool.entered:
			fmt.Println("entered")
		case err := <-serve:
			return err
		}
	}
}

// startChild starts the test binary as a child process with env added,
// killed when the test ends, and returns it and its output.
func startChild(tb testing.TB, env string) (*exec.Cmd, *bufio.Scanner) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil { // open until the child is killed
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill() // this test's child, by its pid; it may be gone already
		cmd.Wait()
	})
	return cmd, bufio.NewScanner(out)
}

// startEngineProcess starts an engine process and returns it, its output
// after the address line, and the address.
func startEngineProcess(tb testing.TB) (*exec.Cmd, *bufio.Scanner, string) {
	tb.Helper()
	cmd, lines := startChild(tb, engineEnv+"=1")
	if !lines.Scan() {
		tb.Fatalf("engine process %d printed no address: %v", cmd.Process.Pid, lines.Err())
	}
	return cmd, lines, lines.Text()
}

// TestClientProcess runs a client as a process of its own, kills it by
// its pid, and checks that the engine closes the handles it had open and
// serves another client on.
func TestClientProcess(t *testing.T) {
	pool := &countingPool{Pool: memobj.NewPool(), closed: make(chan string, 4)}
	for _, l := range []string{"a", "b"} {
		if err := pool.CreateCont(context.Background(), l, object.ContProps{}); err != nil {
			t.Fatal(err)
		}
	}
	e := startEngine(t, shmTransport(t), pool)
	cmd, lines := startChild(t, clientEnv+"="+e.addr)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("client process %d: %q, %v, want \"ready\"", cmd.Process.Pid, lines.Text(), lines.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	got := []string{<-pool.closed, <-pool.closed}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("handles the engine closed after the client process died: %q, want a and b", got)
	}
	if _, err := e.dial(t, 2, client.ClientOptions{}).ListConts(context.Background()); err != nil {
		t.Errorf("another client after the death: %v", err)
	}
}

// TestEngineProcess runs the engine as a process of its own, kills it
// while a call waits in it, and checks that the call and the next one
// fail naming the engine instead of hanging.
func TestEngineProcess(t *testing.T) {
	cmd, lines, addr := startEngineProcess(t)
	pid := cmd.Process.Pid
	tr := shmTransport(t)
	ctx := context.Background()
	cl, err := client.Dial(ctx, tr, addr, client.ClientOptions{Rank: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := rpctest.OpenCont(t, cl, "c")
	if err := c.WriteArray(ctx, rpctest.Array, 0, pattern(1<<20, 1), 0); err != nil {
		t.Fatalf("WriteArray to engine process %d: %v", pid, err)
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, rpctest.KVOID, "block", "a")
		blocked <- err
	}()
	if !lines.Scan() || lines.Text() != "entered" {
		t.Fatalf("engine process %d: %q, %v, want \"entered\"", pid, lines.Text(), lines.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for i, err := range []error{<-blocked, c.Put(ctx, rpctest.KVOID, "d", "a", nil)} {
		if !errors.Is(err, fabric.ErrClosed) || !strings.Contains(err.Error(), "dfs engine "+addr+": ") {
			t.Errorf("call %d after killing engine process %d: %v, want ErrClosed naming %s", i, pid, err, addr)
		}
	}
}
