package ucx

import (
	"errors"
	"testing"
)

// BenchmarkProgress is the cost of one call into UCX through purego on the
// latency path: ucp_worker_progress of an idle worker, under the worker's
// lock, as a wait's poll makes it.
func BenchmarkProgress(b *testing.B) {
	l, err := openLib()
	if errors.Is(err, ErrNoLibrary) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	wk, err := newWorker(l, [][2]string{{"TLS", "posix,self"}})
	if err != nil {
		b.Fatal(err)
	}
	defer wk.destroy()
	b.ReportAllocs()
	for b.Loop() {
		wk.mu.Lock()
		wk.progress()
		wk.mu.Unlock()
	}
}
