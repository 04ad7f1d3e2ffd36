//go:build linux

package shm

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/fabric/fabrictest"
)

// Environment variables for sweeps. benchOptsEnv holds JSON that overrides
// fields of the default options (HPCBENCH_SHM_BENCH_OPTS='{"eagerLimitBytes":65536}');
// benchSizesEnv adds message sizes in bytes to the round trips and streams
// (HPCBENCH_SHM_BENCH_SIZES=16777216,67108864).
const (
	benchOptsEnv  = "HPCBENCH_SHM_BENCH_OPTS"
	benchSizesEnv = "HPCBENCH_SHM_BENCH_SIZES"
)

// Sizes of the benchmarks: IMB PingPong's anchors, and streaming.
var (
	roundTripSizes = []int{8, 1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}
	streamSizes    = []int{8, 64 << 10, 1 << 20, 4 << 20}
)

// benchWarmUp is the number of untimed round trips or messages.
const benchWarmUp = 10

// benchSizes returns sizes plus those in benchSizesEnv.
func benchSizes(b *testing.B, sizes []int) []int {
	s := os.Getenv(benchSizesEnv)
	if s == "" {
		return sizes
	}
	sizes = slices.Clone(sizes)
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			b.Fatalf("%s: %q is not a size in bytes", benchSizesEnv, f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

func benchOptions(b *testing.B) Options {
	o := DefaultOptions()
	if s := os.Getenv(benchOptsEnv); s != "" {
		if err := json.Unmarshal([]byte(s), &o); err != nil {
			b.Fatalf("%s: %v", benchOptsEnv, err)
		}
	}
	return o
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkInProcess runs the fabrictest benchmarks over a pair of Conns in
// one process (two goroutines).
func BenchmarkInProcess(b *testing.B) {
	tr := newTransport(b, benchOptions(b))
	mk := func(b *testing.B) (x, y fabric.Conn) { return fabrictest.Pair(b, tr) }
	for _, size := range benchSizes(b, roundTripSizes) {
		b.Run("RoundTrip/"+sizeName(size), func(b *testing.B) { fabrictest.BenchRoundTrip(b, mk, size) })
	}
	for _, size := range benchSizes(b, streamSizes) {
		b.Run("Stream/"+sizeName(size), func(b *testing.B) { fabrictest.BenchStream(b, mk, size) })
	}
}

// BenchmarkCrossProcess measures the same round trips and streams against a
// peer process, as two MPI ranks on one host would run them, with buffers
// from the arena (as hpcbench coll's) unless the options turn it off. ns/xfer is the
// one-way time (IMB PingPong's t), MB/s the bandwidth (10^6 B/s).
func BenchmarkCrossProcess(b *testing.B) {
	o := benchOptions(b)
	p := startPeer(b, "serve", o)
	for _, size := range benchSizes(b, roundTripSizes) {
		b.Run("RoundTrip/"+sizeName(size), func(b *testing.B) { benchRoundTrip(b, p, size) })
	}
	for _, size := range benchSizes(b, streamSizes) {
		b.Run("Stream/"+sizeName(size), func(b *testing.B) { benchStream(b, p, size) })
	}
}

// BenchmarkOversubscribed repeats BenchmarkCrossProcess's round trips while
// a second pair of processes ping-pongs 1 KiB messages: four processes on
// two cores (where MPICH's busy polling collapses to milliseconds).
func BenchmarkOversubscribed(b *testing.B) {
	o := benchOptions(b)
	var kill func()
	server, addr := spawn(b, "serve", o, func() { kill() })
	driver, _ := spawn(b, "drive", o, func() {}, peerDialEnv+"="+addr, peerDriveEnv+"=1024")
	kill = func() { _ = driver.Process.Kill(); _ = server.Process.Kill() }
	p := startPeer(b, "serve", o)
	for _, size := range benchSizes(b, roundTripSizes) {
		b.Run("RoundTrip/"+sizeName(size), func(b *testing.B) { benchRoundTrip(b, p, size) })
	}
}

func benchRoundTrip(b *testing.B, p *peer, size int) {
	ctx := b.Context()
	m, buf := p.arenaCopy(b, fill(size, 1)), p.arenaCopy(b, make([]byte, size))
	if err := p.command(ctx, opEcho, uint32(benchWarmUp+b.N), size); err != nil {
		b.Fatal(err)
	}
	rt := func() {
		if err := p.c.Send(ctx, tagData, m); err != nil {
			b.Fatal(err)
		}
		if k, err := p.c.Recv(ctx, tagData, buf); err != nil || k != size {
			b.Fatalf("Recv: %d bytes, %v", k, err)
		}
	}
	for range benchWarmUp {
		rt()
	}
	lat := make([]time.Duration, b.N)
	b.SetBytes(2 * int64(size))
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		rt()
		lat[i] = time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/xfer")
	reportMedian(b, lat, size)
}

// reportMedian adds the median one-way time of the round trips in lat, and
// the bandwidth it implies, as metrics: on a shared machine the mean is
// dominated by the round trips that were descheduled.
func reportMedian(b *testing.B, lat []time.Duration, size int) {
	slices.Sort(lat)
	med := lat[len(lat)/2] / 2
	b.ReportMetric(float64(med.Nanoseconds()), "p50-ns/xfer")
	if size > 0 {
		b.ReportMetric(float64(size)/med.Seconds()/1e9, "p50-GB/s")
	}
}

func benchStream(b *testing.B, p *peer, size int) {
	ctx := b.Context()
	m := p.arenaCopy(b, fill(size, 1))
	batch := func(n int) {
		if err := p.command(ctx, opSink, uint32(n), size); err != nil {
			b.Fatal(err)
		}
		for range n {
			if err := p.c.Send(ctx, tagData, m); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := p.c.Recv(ctx, tagAck, nil); err != nil {
			b.Fatal(err)
		}
	}
	batch(benchWarmUp)
	b.SetBytes(int64(size))
	b.ResetTimer()
	batch(b.N)
}
