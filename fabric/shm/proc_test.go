//go:build linux

package shm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
)

// The test binary doubles as the peer process of the cross-process tests:
// with peerEnv set, TestMain runs runPeer instead of the tests.
const (
	peerEnv      = "HPCBENCH_SHM_TEST_PEER"  // the peer's mode: "serve", "hang" (never receive) or "drive"
	peerOptsEnv  = "HPCBENCH_SHM_TEST_OPTS"  // its Options, as JSON
	peerDialEnv  = "HPCBENCH_SHM_TEST_DIAL"  // "drive": the address of a "serve" peer
	peerDriveEnv = "HPCBENCH_SHM_TEST_DRIVE" // "drive": message size, bytes
)

// Tags and commands of the peer protocol. The parent sends a command
// (op, count, size) on tagCmd; data moves on tagData; the peer acknowledges
// on tagAck.
const (
	tagData = 1
	tagAck  = 2
	tagCmd  = 100

	opEcho   = 1 // count times: receive a message of up to size bytes, send it back
	opSink   = 2 // receive count messages of up to size bytes, then acknowledge
	opSend   = 3 // send fill(size, count)
	opVerify = 4 // receive a message, acknowledge 1 if it is fill(size, count)
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(peerEnv); mode != "" {
		if err := runPeer(mode); err != nil {
			fmt.Fprintln(os.Stderr, "shm test peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runPeer listens as rank 1, prints its address, accepts one connection
// and serves commands until the parent closes it. In mode "drive" it
// instead dials a serving peer and makes it echo messages until one of
// them is killed, as background load.
func runPeer(mode string) error {
	o := DefaultOptions()
	if s := os.Getenv(peerOptsEnv); s != "" {
		if err := json.Unmarshal([]byte(s), &o); err != nil {
			return fmt.Errorf("options %s: %w", s, err)
		}
	}
	tr, err := New(o)
	if err != nil {
		return err
	}
	if mode == "drive" {
		return drive(tr, os.Getenv(peerDialEnv), os.Getenv(peerDriveEnv))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	ln, err := tr.Listen(ctx, 1)
	if err != nil {
		cancel()
		return err
	}
	fmt.Println(ln.Addr())
	fc, _, err := ln.Accept(ctx)
	cancel()
	ln.Close()
	if err != nil {
		return err
	}
	c := fc.(*Conn)
	defer c.Close()
	ctx = context.Background()
	if mode == "hang" { // neither send nor receive until the parent closes or kills us
		for !c.peerClosed() {
			time.Sleep(10 * time.Millisecond)
		}
		return nil
	}
	var buf []byte
	cmd := make([]byte, 16)
	for {
		if _, err := c.Recv(ctx, tagCmd, cmd); err != nil {
			if errors.Is(err, fabric.ErrClosed) {
				return nil
			}
			return err
		}
		op, count := binary.LittleEndian.Uint32(cmd), binary.LittleEndian.Uint32(cmd[4:])
		size := int(binary.LittleEndian.Uint64(cmd[8:]))
		if len(buf) < size+1 {
			tr.Free(buf)
			buf = tr.Alloc(size + 1) // the arena's, when it has one
		}
		switch op {
		case opEcho:
			for range count {
				k, err := c.Recv(ctx, tagData, buf[:size])
				if err != nil {
					return err
				}
				if err := c.Send(ctx, tagData, buf[:k]); err != nil {
					return err
				}
			}
		case opSink:
			for range count {
				if _, err := c.Recv(ctx, tagData, buf[:size]); err != nil {
					return err
				}
			}
			if err := c.Send(ctx, tagAck, nil); err != nil {
				return err
			}
		case opSend:
			if err := c.Send(ctx, tagData, fill(size, uint64(count))); err != nil {
				return err
			}
		case opVerify:
			k, err := c.Recv(ctx, tagData, buf)
			if err != nil {
				return err
			}
			ok := byte(0)
			if bytes.Equal(buf[:k], fill(size, uint64(count))) {
				ok = 1
			}
			if err := c.Send(ctx, tagAck, []byte{ok}); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown command %d", op)
		}
	}
}

// drive dials the serving peer at addr and ping-pongs messages of size
// bytes with it until the connection fails.
func drive(tr *Transport, addr, size string) error {
	n, err := strconv.Atoi(size)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", peerDriveEnv, size, err)
	}
	ctx := context.Background()
	fc, err := tr.Dial(ctx, 0, addr)
	if err != nil {
		return err
	}
	p := &peer{c: fc.(*Conn)}
	defer p.c.Close()
	m, buf := fill(n, 1), make([]byte, n)
	for {
		if err := p.command(ctx, opEcho, 1<<31, n); err != nil {
			return nil
		}
		for range 1 << 31 {
			if err := p.c.Send(ctx, tagData, m); err != nil {
				return nil
			}
			if _, err := p.c.Recv(ctx, tagData, buf); err != nil {
				return nil
			}
		}
	}
}

// peer is a peer process and this process's Conn to it, through tr.
type peer struct {
	cmd *exec.Cmd
	c   *Conn
	tr  *Transport
}

// arenaCopy returns b copied into a buffer from the peer's transport's
// arena (the heap when it has none), freed when the test ends.
func (p *peer) arenaCopy(tb testing.TB, b []byte) []byte {
	a := p.tr.Alloc(len(b))
	copy(a, b)
	tb.Cleanup(func() { p.tr.Free(a) })
	return a
}

// startPeer starts the test binary as a peer in mode with options o and
// dials it. Cleanup closes the Conn and waits for the process.
func startPeer(tb testing.TB, mode string, o Options) *peer {
	tb.Helper()
	p := &peer{}
	var addr string
	p.cmd, addr = spawn(tb, mode, o, func() {
		if p.c != nil {
			p.c.Close()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.tr = newTransport(tb, o)
	c, err := p.tr.Dial(ctx, 0, addr)
	if err != nil {
		tb.Fatalf("dialing the peer process at %q: %v", addr, err)
	}
	p.c = c.(*Conn)
	return p
}

// spawn starts the test binary as a peer process in mode with options o
// and extra environment, and returns it with the address it printed.
// Cleanup calls before (which should make the process exit), then waits
// for the process, killing it after 10 s.
func spawn(tb testing.TB, mode string, o Options, before func(), env ...string) (*exec.Cmd, string) {
	tb.Helper()
	js, err := json.Marshal(o)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), peerEnv+"="+mode, peerOptsEnv+"="+string(js))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		before()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil && mode == "serve" {
				tb.Errorf("peer process: %v", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			tb.Errorf("peer process did not exit")
		}
	})
	if mode == "drive" {
		return cmd, ""
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr := <-line:
		return cmd, addr
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		tb.Fatal("peer process printed no address")
	}
	return nil, ""
}

// command sends a command to the peer.
func (p *peer) command(ctx context.Context, op uint32, count uint32, size int) error {
	cmd := binary.LittleEndian.AppendUint32(nil, op)
	cmd = binary.LittleEndian.AppendUint32(cmd, count)
	cmd = binary.LittleEndian.AppendUint64(cmd, uint64(size))
	return p.c.Send(ctx, tagCmd, cmd)
}

// TestCrossProcess moves 8 MiB each way between two processes and checks
// it, through the ring and with cross-memory attach.
func TestCrossProcess(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			p := startPeer(t, "serve", v.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if want := v.opts.CMAThreshold > 0; p.c.useCMA(8<<20) != want {
				t.Fatalf("8 MiB would use CMA: %v, want %v (canAccess %v, peerCanAccess %v)", !want, want, p.c.canAccess, p.c.peerCanAccess)
			}
			if want := v.opts.ArenaSize > 0; (p.c.peerArena != nil) != want {
				t.Fatalf("the peer's arena is mapped: %v, want %v", !want, want)
			}
			if want := v.opts.ArenaSize > 0 || v.opts.CMAThreshold > 0; p.c.useRndv(p.arenaCopy(t, make([]byte, 8<<20))) != want {
				t.Fatalf("8 MiB from an arena buffer would go by rendezvous: %v, want %v", !want, want)
			}
			if p.c.peerPid != p.cmd.Process.Pid {
				t.Errorf("peer pid %d, want %d", p.c.peerPid, p.cmd.Process.Pid)
			}
			const size = 8<<20 + 3
			for seed := range uint32(3) {
				if err := p.command(ctx, opVerify, seed, size); err != nil {
					t.Fatal(err)
				}
				if err := p.c.Send(ctx, tagData, p.arenaCopy(t, fill(size, uint64(seed)))); err != nil {
					t.Fatal(err)
				}
				ack := make([]byte, 1)
				if _, err := p.c.Recv(ctx, tagAck, ack); err != nil || ack[0] != 1 {
					t.Fatalf("peer's check of 8 MiB from us: ack %v, %v", ack, err)
				}
				if err := p.command(ctx, opSend, seed+10, size); err != nil {
					t.Fatal(err)
				}
				got := p.arenaCopy(t, make([]byte, size))
				if seed == 1 {
					got = make([]byte, size) // into the heap: the sender cannot help
				}
				if n, err := p.c.Recv(ctx, tagData, got); err != nil || n != size || !bytes.Equal(got, fill(size, uint64(seed+10))) {
					t.Fatalf("8 MiB from the peer: n %d, err %v, equal %v", n, err, bytes.Equal(got, fill(size, uint64(seed+10))))
				}
			}
			for _, size := range []int{0, 1, 1000, 40 << 10, 300 << 10, 2 << 20} {
				if err := p.command(ctx, opEcho, 1, size); err != nil {
					t.Fatal(err)
				}
				m := p.arenaCopy(t, fill(size, 9))
				if err := p.c.Send(ctx, tagData, m); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, size)
				if n, err := p.c.Recv(ctx, tagData, got); err != nil || n != size || !bytes.Equal(got, m) {
					t.Fatalf("echo of %d bytes: n %d, err %v", size, n, err)
				}
			}
		})
	}
}

// TestPeerDeath kills the peer process while this side is blocked in a
// Recv and in a rendezvous Send (from an arena buffer): both must return
// ErrClosed at once.
func TestPeerDeath(t *testing.T) {
	p := startPeer(t, "hang", DefaultOptions())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recvd := make(chan error, 1)
	go func() {
		_, err := p.c.Recv(ctx, tagData, make([]byte, 8))
		recvd <- err
	}()
	sent := make(chan error, 1)
	m := p.arenaCopy(t, make([]byte, 4<<20))
	if !p.c.useRndv(m) {
		t.Fatal("4 MiB from an arena buffer would not go by rendezvous")
	}
	go func() { sent <- p.c.Send(ctx, tagData, m) }()
	time.Sleep(100 * time.Millisecond) // both asleep by now
	killed := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan error{"Recv": recvd, "Send": sent} {
		select {
		case err := <-ch:
			if !errors.Is(err, fabric.ErrClosed) {
				t.Errorf("%s after the peer was killed: %v, want ErrClosed", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still blocked 5 s after the peer was killed", name)
		}
	}
	if d := time.Since(killed); d > time.Second {
		t.Errorf("blocked calls returned %v after the kill; want well under a second", d)
	}
	if err := p.c.Send(ctx, tagData, []byte("x")); !errors.Is(err, fabric.ErrClosed) {
		t.Errorf("Send to a dead peer: %v, want ErrClosed", err)
	}
}
