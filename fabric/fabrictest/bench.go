package fabrictest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
)

// Tags the benchmarks use.
const (
	benchTag = 1 // data
	ackTag   = 2 // BenchStream's end-of-batch acknowledgement
	warmUp   = 10
)

// BenchConnPair runs BenchRoundTrip for 8 B, 1 KiB, 64 KiB and 1 MiB and
// BenchStream for 64 KiB and 4 MiB as sub-benchmarks named
// RoundTrip/8B … Stream/4MiB.
func BenchConnPair(b *testing.B, mk func(b *testing.B) (x, y fabric.Conn)) {
	b.Run("RoundTrip", func(b *testing.B) {
		for _, size := range []int{8, 1 << 10, 64 << 10, 1 << 20} {
			b.Run(sizeName(size), func(b *testing.B) { BenchRoundTrip(b, mk, size) })
		}
	})
	b.Run("Stream", func(b *testing.B) {
		for _, size := range []int{64 << 10, 4 << 20} {
			b.Run(sizeName(size), func(b *testing.B) { BenchStream(b, mk, size) })
		}
	})
}

// BenchRoundTrip measures a ping-pong of size-byte messages over a pair made
// by mk: x sends, y receives the message and sends it back, x receives it.
//
// One op is one round trip, so ns/op is the round-trip time; the ns/xfer
// metric is half of it, the one-way latency that fi_pingpong prints as
// usec/xfer. SetBytes counts 2×size per op, both directions, as
// fi_pingpong's MB/sec does. mk is called once per run of the benchmark
// function and, like ten warm-up round trips, is not timed. Allocations
// are those of both goroutines.
func BenchRoundTrip(b *testing.B, mk func(b *testing.B) (x, y fabric.Conn), size int) {
	x, y := mk(b)
	ctx := b.Context()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer closePair(x, y) // unblocks the echo goroutine if the loop fails

	echo := make(chan error, 1)
	n := warmUp + b.N
	wg.Go(func() { echo <- echoLoop(ctx, y, n, size) })

	m := pattern(size, 1)
	buf := make([]byte, size)
	roundTrip := func() {
		if err := x.Send(ctx, benchTag, m); err != nil {
			b.Fatalf("Send of %d bytes: %v", size, err)
		}
		k, err := x.Recv(ctx, benchTag, buf)
		if err != nil {
			b.Fatalf("Recv of %d bytes: %v", size, err)
		}
		if k != size {
			b.Fatalf("Recv: got %d bytes; want %d", k, size)
		}
	}
	for range warmUp {
		roundTrip()
	}
	b.SetBytes(2 * int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		roundTrip()
	}
	b.StopTimer()
	if err := <-echo; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/xfer")
}

// echoLoop receives n messages of up to size bytes on c and sends each back.
func echoLoop(ctx context.Context, c fabric.Conn, n, size int) error {
	buf := make([]byte, size)
	for i := range n {
		k, err := c.Recv(ctx, benchTag, buf)
		if err != nil {
			return fmt.Errorf("echo: Recv of message %d: %w", i, err)
		}
		if err := c.Send(ctx, benchTag, buf[:k]); err != nil {
			return fmt.Errorf("echo: Send of message %d: %w", i, err)
		}
	}
	return nil
}

// BenchStream measures one-way streaming over a pair made by mk: x sends
// size-byte messages back to back and y receives them. One op is one
// message, and SetBytes counts size per op, so MB/s is the bandwidth, counted
// as fabtests' fi_msg_bw does. After the last message y sends an empty
// acknowledgement, and the time includes waiting for it, so everything sent
// was also received. mk, and a warm-up batch of ten messages, are not timed.
func BenchStream(b *testing.B, mk func(b *testing.B) (x, y fabric.Conn), size int) {
	x, y := mk(b)
	ctx := b.Context()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer closePair(x, y) // unblocks the receiving goroutine if the loop fails

	sink := make(chan error, 1)
	batches := []int{warmUp, b.N}
	wg.Go(func() { sink <- sinkLoop(ctx, y, batches, size) })

	m := pattern(size, 1)
	batch := func(count int) {
		for i := range count {
			if err := x.Send(ctx, benchTag, m); err != nil {
				b.Fatalf("Send of message %d: %v", i, err)
			}
		}
		if _, err := x.Recv(ctx, ackTag, nil); err != nil {
			b.Fatalf("Recv of the acknowledgement: %v", err)
		}
	}
	batch(warmUp)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	batch(b.N)
	b.StopTimer()
	if err := <-sink; err != nil {
		b.Fatal(err)
	}
}

// sinkLoop receives each batch of size-byte messages on c and acknowledges
// it with an empty message.
func sinkLoop(ctx context.Context, c fabric.Conn, batches []int, size int) error {
	buf := make([]byte, size)
	for _, count := range batches {
		for i := range count {
			k, err := c.Recv(ctx, benchTag, buf)
			if err != nil {
				return fmt.Errorf("sink: Recv of message %d: %w", i, err)
			}
			if k != size {
				return fmt.Errorf("sink: message %d is %d bytes; want %d", i, k, size)
			}
		}
		if err := c.Send(ctx, ackTag, nil); err != nil {
			return fmt.Errorf("sink: Send of the acknowledgement: %w", err)
		}
	}
	return nil
}

// closePair closes both Conns, ignoring errors (mk may close them again).
func closePair(x, y fabric.Conn) {
	_ = x.Close()
	_ = y.Close()
}

// sizeName names a benchmark size: 8B, 1KiB, 64KiB, 4MiB.
func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
