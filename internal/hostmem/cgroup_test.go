package hostmem

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupLeftAt builds cgroup trees in a directory and checks what
// cgroupLeftAt finds: the process's own cgroup (not the root's files), a
// parent's tighter limit, inactive page cache counted as free, v1, v2 and
// the hybrid layout.
func TestCgroupLeftAt(t *testing.T) {
	const mib = 1 << 20
	type files map[string]string // path under root: content
	tests := []struct {
		name     string
		tree     files
		self     string
		want     int64
		wantSome bool
	}{
		{"v2 own cgroup", files{
			"job/memory.max": "1073741824", "job/memory.current": "104857600",
			"job/memory.stat": "anon 10\nfile 50\ninactive_file 52428800\n",
		}, "0::/job\n", 1024*mib - 100*mib + 50*mib, true},
		{"v2 parent tighter", files{
			"a/memory.max": "209715200", "a/memory.current": "104857600",
			"a/b/memory.max": "max", "a/b/memory.current": "104857600",
		}, "0::/a/b\n", 100 * mib, true},
		{"v2 unlimited", files{"job/memory.max": "max", "job/memory.current": "5"}, "0::/job\n", 0, false},
		{"v1 memory line", files{
			"memory/memory.limit_in_bytes":     "9223372036854771712",
			"memory/p/q/memory.limit_in_bytes": "524288000",
			"memory/p/q/memory.usage_in_bytes": "314572800",
			"memory/p/q/memory.stat":           "inactive_file 1\ntotal_inactive_file 104857600\n",
			"memory/p/memory.limit_in_bytes":   "9223372036854771712",
			"unified/cgroup.controllers":       "",
			"unified/memory.max":               "should not be read at the hybrid root",
		}, "4:memory:/p/q\n0::/\n", 500*mib - 300*mib + 100*mib, true},
		{"v1 joined controllers", files{
			"memory/x/memory.limit_in_bytes": "104857600", "memory/x/memory.usage_in_bytes": "209715200",
		}, "3:cpu,memory:/x\n", 0, true}, // over the limit: nothing left
		{"no limit anywhere", files{}, "0::/\n4:memory:/\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for p, text := range tt.tree {
				full := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := cgroupLeftAt(root, tt.self)
			if ok != tt.wantSome || (ok && got != tt.want) {
				t.Errorf("cgroupLeftAt = %d, %v; want %d, %v", got, ok, tt.want, tt.wantSome)
			}
		})
	}
}
