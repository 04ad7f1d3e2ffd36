package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// crashEnv carries the pool directory to the child of TestCrash, and
// crashSyncEnv whether it opens the pool with SyncKV.
const (
	crashEnv     = "HPCBENCH_STORE_CRASH_POOL"
	crashSyncEnv = "HPCBENCH_STORE_CRASH_SYNC"
)

// crashArray is the array the child writes: SX, small chunks, so each
// write crosses chunk boundaries and targets.
var crashArray = object.Array{OID: object.NewOID(object.SX, 1), ChunkSize: 4096}

// crashValue is the value of the child's KV record i.
func crashValue(i int) []byte {
	return []byte(fmt.Sprintf("inode %d: %s", i, strings.Repeat("x", i%200)))
}

// crashExtent is the child's array write i: 5000 bytes at i*5000.
func crashExtent(i int) (int64, []byte) {
	return int64(i) * 5000, bytes.Repeat([]byte{byte(i%251 + 1)}, 5000)
}

// crashSmall is the child's small array i and its bytes: written 100 at
// offset 0 (an array the log holds), then, for every third, the rest at
// 100, past HoldMax (the write that moves it to extent files).
func crashSmall(i int) (object.Array, []byte) {
	a := object.Array{OID: object.NewOID(object.S2, 1<<20+uint64(i)), ChunkSize: 4096}
	n := 100
	if i%9 == 2 {
		n = HoldMax + 500
	}
	return a, bytes.Repeat([]byte{byte(i%13 + 1)}, n)
}

// TestCrashChild is the child process of TestCrash; run alone it skips.
// It writes KV records and array extents until it is killed, reporting
// each acknowledged one on fd 3.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("the child process of TestCrash")
	}
	ack := os.NewFile(3, "ack")
	ctx := context.Background()
	p, err := Open(dir, Options{SyncKV: os.Getenv(crashSyncEnv) == "1"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.OpenContainer(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1<<20; i++ {
		var line string
		switch i % 3 {
		case 0, 1:
			if err := c.Put(ctx, crashArray.OID, "k"+strconv.Itoa(i), "DFS_INODE", crashValue(i)); err != nil {
				t.Fatal(err)
			}
			line = fmt.Sprintf("kv %d\n", i)
		case 2:
			off, b := crashExtent(i)
			if err := c.WriteArray(ctx, crashArray, off, b, 0); err != nil {
				t.Fatal(err)
			}
			a, small := crashSmall(i)
			if err := c.WriteArray(ctx, a, 0, small[:100], 0); err != nil {
				t.Fatal(err)
			}
			if len(small) > 100 {
				if err := c.WriteArray(ctx, a, 100, small[100:], 0); err != nil {
					t.Fatal(err)
				}
			}
			oid, err := c.AllocOIDs(ctx, object.S1, 3)
			if err != nil {
				t.Fatal(err)
			}
			line = fmt.Sprintf("arr %d %d\n", i, oid.Lo+2)
		}
		if _, err := ack.WriteString(line); err != nil {
			return // the parent is gone
		}
	}
}

// TestCrash kills (SIGKILL) a child writing to a pool mid-stream, then
// reopens the pool and checks that everything the child acknowledged is
// there and that the store is consistent.
func TestCrash(t *testing.T) {
	for _, sync := range []string{"0", "1"} {
		t.Run("SyncKV="+sync, func(t *testing.T) { crash(t, sync) })
	}
}

func crash(t *testing.T, sync string) {
	ctx := context.Background()
	dir := makePool(t, 3, "c")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir, crashSyncEnv+"="+sync)
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var kvs, arrs []int
	var maxOID uint64
	killed := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		i, _ := strconv.Atoi(f[1])
		if f[0] == "kv" {
			kvs = append(kvs, i)
		} else {
			arrs = append(arrs, i)
			lo, _ := strconv.ParseUint(f[2], 10, 64)
			maxOID = max(maxOID, lo)
		}
		if !killed && len(kvs) >= 600 {
			cmd.Process.Kill() // SIGKILL to the child this test started
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("the child ended before it was killed: %v\n%s", err, stderr.String())
	}
	t.Logf("killed after %d KV records and %d extents acknowledged", len(kvs), len(arrs))

	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer p.Close()
	c, err := p.OpenContainer(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, i := range kvs {
		if v, err := c.Get(ctx, crashArray.OID, "k"+strconv.Itoa(i), "DFS_INODE"); err != nil || !bytes.Equal(v, crashValue(i)) {
			t.Errorf("acknowledged record %d: %q, %v", i, v, err)
		}
	}
	for _, i := range arrs {
		off, want := crashExtent(i)
		got := make([]byte, len(want))
		if n, err := c.ReadArray(ctx, crashArray, off, got, 0); n != len(want) || !bytes.Equal(got, want) {
			t.Errorf("acknowledged extent %d: %d bytes, %v, same: %v", i, n, err, bytes.Equal(got, want))
		}
		a, small := crashSmall(i)
		got = make([]byte, len(small)+1)
		if n, err := c.ReadArray(ctx, a, 0, got, 0); n != len(small) || err != io.EOF || !bytes.Equal(got[:n], small) {
			t.Errorf("acknowledged small array %d (%d bytes): %d bytes, %v, same: %v", i, len(small), n, err, bytes.Equal(got[:n], small))
		}
	}
	keys, _, err := c.List(ctx, crashArray.OID, "", 0)
	if err != nil || len(keys) < len(kvs) {
		t.Errorf("List after the kill = %d dkeys, %v; want at least the %d acknowledged", len(keys), err, len(kvs))
	}
	if oid, err := c.AllocOIDs(ctx, object.S1, 1); err != nil || oid.Lo <= maxOID {
		t.Errorf("AllocOIDs after the kill = %v, %v; want above the last id handed out, %d", oid, err, maxOID)
	}
	if err := c.Put(ctx, crashArray.OID, "after", "a", []byte("x")); err != nil {
		t.Errorf("Put after the kill: %v", err)
	}
}
