package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/aiori/dfs/object/memobj"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/shm"
)

// engineEnv, when set, makes the test binary an engine process serving a
// memobj pool over shm: it prints its address, then "entered" each time
// a Get of dkey "block" starts (which never ends), until it is killed.
const engineEnv = "HPCBENCH_RPC_TEST_ENGINE"

func TestMain(m *testing.M) {
	if os.Getenv(engineEnv) != "" {
		if err := runEngine(); err != nil {
			fmt.Fprintln(os.Stderr, "rpc test engine:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runEngine is the child engine's life.
func runEngine() error {
	tr, err := shm.New(shm.DefaultOptions())
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
	go func() { serve <- Serve(ctx, l, pool, ServerOptions{Alloc: tr}) }()
	for {
		select {
		case <-pool.entered:
			fmt.Println("entered")
		case err := <-serve:
			return err
		}
	}
}

// startEngineProcess starts the test binary as an engine process, killed
// when the test ends, and returns it, its output after the address line,
// and the address.
func startEngineProcess(tb testing.TB) (*exec.Cmd, *bufio.Scanner, string) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), engineEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill() // this test's child, by its pid; it may be gone already
		cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		tb.Fatalf("engine process %d printed no address: %v", cmd.Process.Pid, lines.Err())
	}
	return cmd, lines, lines.Text()
}

// TestEngineProcess runs the engine as a process of its own, kills it
// while a call waits in it, and checks that the call and the next one
// fail naming the engine instead of hanging.
func TestEngineProcess(t *testing.T) {
	cmd, lines, addr := startEngineProcess(t)
	pid := cmd.Process.Pid
	tr := shmTransport(t)
	ctx := context.Background()
	cl, err := Dial(ctx, tr, addr, ClientOptions{Rank: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := openCont(t, cl, "c")
	if err := c.WriteArray(ctx, arr, 0, pattern(1<<20, 1), 0); err != nil {
		t.Fatalf("WriteArray to engine process %d: %v", pid, err)
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, kvOID, "block", "a")
		blocked <- err
	}()
	if !lines.Scan() || lines.Text() != "entered" {
		t.Fatalf("engine process %d: %q, %v, want \"entered\"", pid, lines.Text(), lines.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for i, err := range []error{<-blocked, c.Put(ctx, kvOID, "d", "a", nil)} {
		if !errors.Is(err, fabric.ErrClosed) || !strings.Contains(err.Error(), "dfs engine "+addr+": ") {
			t.Errorf("call %d after killing engine process %d: %v, want ErrClosed naming %s", i, pid, err, addr)
		}
	}
}
