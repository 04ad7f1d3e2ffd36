package ior

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/config"
)

func TestResolveMemory(t *testing.T) {
	t.Parallel()
	const physical = 8 << 30
	tests := []struct {
		name       string
		node       config.NodeMemory
		task       int64
		tasks      int
		wantNode   int64
		wantTask   int64
		wantErrSub string
	}{
		{"none", config.NodeMemory{}, 0, 4, 0, 0, ""},
		{"size shared by the node's tasks", config.NodeMemory{Bytes: 1 << 30}, 0, 4, 1 << 30, 256 << 20, ""},
		{"percent of RAM, IOR's mem/100*p", config.NodeMemory{Percent: 75}, 0, 3, physical / 100 * 75, physical / 100 * 75 / 3, ""},
		{"per task", config.NodeMemory{}, 16 << 20, 4, 0, 16 << 20, ""},
		{"no tasks counted: one", config.NodeMemory{Bytes: 1 << 20}, 0, 0, 1 << 20, 1 << 20, ""},
		{"node beyond RAM", config.NodeMemory{Bytes: 9 << 30}, 0, 1, 0, 0, "more than the node's 8589934592 bytes"},
		{"task beyond RAM", config.NodeMemory{}, 9 << 30, 1, 0, 0, "-O memoryPerTask=9663676416: more than"},
	}
	for _, tt := range tests {
		o := config.DefaultOptions()
		o.MemoryPerNode, o.MemoryPerTask = tt.node, tt.task
		h, err := resolveMemory(&o, tt.tasks, physical)
		if tt.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErrSub)
			}
			continue
		}
		if err != nil || h.node != tt.wantNode || h.task != tt.wantTask {
			t.Errorf("%s: node %d task %d, %v; want %d, %d", tt.name, h.node, h.task, err, tt.wantNode, tt.wantTask)
		}
	}
}

// rss returns this process's resident memory in bytes.
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestMemoryHogHolds: hold really takes the memory (the resident size
// grows by it) and release gives it back.
func TestMemoryHogHolds(t *testing.T) {
	const size = 64 << 20
	h := memoryHog{task: size}
	before := rss(t)
	if err := h.hold(); err != nil {
		t.Fatal(err)
	}
	if len(h.mem) != size {
		t.Fatalf("holds %d bytes, want %d", len(h.mem), size)
	}
	held := rss(t)
	if held-before < size*9/10 {
		t.Errorf("resident size grew by %d bytes, want about %d", held-before, size)
	}
	if err := h.release(); err != nil {
		t.Fatal(err)
	}
	if after := rss(t); held-after < size*9/10 {
		t.Errorf("resident size fell by %d bytes after release, want about %d", held-after, size)
	}
	if err := h.release(); err != nil {
		t.Errorf("second release: %v", err)
	}
	if p, err := physicalMemory(); err != nil || p <= 0 {
		t.Errorf("physicalMemory() = %d, %v", p, err)
	}
}
