package ofi

import "testing"

// BenchmarkPoll measures one poll of an empty completion queue: the cost
// of a call into libfabric through purego, which every wait pays per look.
func BenchmarkPoll(b *testing.B) {
	l, err := load()
	if err != nil {
		b.Skip(err)
	}
	e, err := openEndpoint(l, "shm", "")
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	b.ResetTimer()
	for b.Loop() {
		e.mu.Lock()
		e.pollLocked()
		e.mu.Unlock()
	}
}

// BenchmarkExpose measures the registration of a 1 MiB region and its
// release, which a rendezvous receive pays once per message.
func BenchmarkExpose(b *testing.B) {
	l, err := load()
	if err != nil {
		b.Skip(err)
	}
	e, err := openEndpoint(l, "shm", "")
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	c := &Conn{e: e}
	buf := make([]byte, 1<<20)
	for b.Loop() {
		_, release, err := c.Expose(buf)
		if err != nil {
			b.Fatal(err)
		}
		if err := release(); err != nil {
			b.Fatal(err)
		}
	}
}
