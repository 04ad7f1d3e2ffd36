package imb

import (
	"fmt"
	"strings"
)

// kind is IMB's benchmark type; it picks the process counts a benchmark
// runs at, how it is timed and the shape of its table.
type kind int

const (
	// kindSingle is IMB's SingleTransfer (PingPong, PingPing): two
	// processes, the rest idle; table #bytes #repetitions t Mbytes/sec.
	kindSingle kind = iota
	// kindParallel is IMB's ParallelTransfer (Sendrecv, Exchange): a ring
	// of every active process; t_min t_max t_avg and Mbytes/sec.
	kindParallel
	// kindCollective is IMB's Collective: t_min t_max t_avg.
	kindCollective
	// kindSync is IMB's Sync (Barrier): one row, no message size.
	kindSync
)

// benchmark describes one IMB-MPI1 benchmark.
type benchmark struct {
	name      string  // IMB's spelling: "PingPong"
	kind      kind    // what it is, see kind
	reduction bool    // elements are float32 (sizes are multiples of 4)
	rooted    bool    // takes a root (Bcast, Scatter, Gather, Reduce)
	scaleTime float64 // per-rank time factor: 0.5 for a round trip
	scaleBW   float64 // bytes moved per repetition, in message sizes
	// bufs returns the send and receive buffer lengths at this message
	// size on np processes (IMB_init_buffers_iter).
	bufs func(size, np int) (send, recv int)
	// kernel runs n repetitions and returns the mean time of one, before
	// scaleTime, and the number of defective results when checking.
	kernel kernelFunc
	// want writes into want (len(x.recv)) what x.recv must hold after a
	// repetition with root, and reports whether this rank checks anything.
	want wantFunc
}

// benchmarks lists the supported benchmarks in IMB-MPI1's default order
// (IMB_bnames_mpi1.h DEFC), which is the order they run in when none are
// named. Scale factors are IMB_set_bmark's: PingPong's time is halved (one
// repetition is a round trip); PingPing's is not (its messages cross).
func benchmarks() []benchmark {
	same := func(size, _ int) (int, int) { return size, size }
	return []benchmark{
		{name: "PingPong", kind: kindSingle, scaleTime: 0.5, scaleBW: 1, bufs: same, kernel: pingPong, want: wantPeer},
		{name: "PingPing", kind: kindSingle, scaleTime: 1, scaleBW: 1, bufs: same, kernel: pingPing, want: wantPeer},
		{name: "Sendrecv", kind: kindParallel, scaleTime: 1, scaleBW: 2, bufs: same, kernel: sendrecv, want: wantLeft},
		{name: "Exchange", kind: kindParallel, scaleTime: 1, scaleBW: 4,
			bufs: func(size, _ int) (int, int) { return 2 * size, 2 * size }, kernel: exchange, want: wantExchange},
		{name: "Allreduce", kind: kindCollective, reduction: true, scaleTime: 1, scaleBW: 1, bufs: same,
			kernel: allreduce, want: wantSum(false)},
		{name: "Reduce", kind: kindCollective, reduction: true, rooted: true, scaleTime: 1, scaleBW: 1, bufs: same,
			kernel: reduce, want: wantSum(true)},
		{name: "Allgather", kind: kindCollective, scaleTime: 1, scaleBW: 1,
			bufs: func(size, np int) (int, int) { return size, np * size }, kernel: allgather, want: wantGathered(false)},
		{name: "Gather", kind: kindCollective, rooted: true, scaleTime: 1, scaleBW: 1,
			bufs: func(size, np int) (int, int) { return size, np * size }, kernel: gather, want: wantGathered(true)},
		{name: "Scatter", kind: kindCollective, rooted: true, scaleTime: 1, scaleBW: 1,
			bufs: func(size, np int) (int, int) { return np * size, size }, kernel: scatter, want: wantScattered},
		{name: "Alltoall", kind: kindCollective, scaleTime: 1, scaleBW: 1,
			bufs: func(size, np int) (int, int) { return np * size, np * size }, kernel: alltoall, want: wantAlltoall},
		{name: "Bcast", kind: kindCollective, rooted: true, scaleTime: 1, scaleBW: 1, bufs: same,
			kernel: bcast, want: wantBcast},
		{name: "Barrier", kind: kindSync, scaleTime: 1, scaleBW: 1,
			bufs: func(int, int) (int, int) { return 0, 0 }, kernel: barrier, want: wantNothing},
	}
}

// Names returns the names of the supported benchmarks, in the order they
// run when none are named.
func Names() []string {
	bs := benchmarks()
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.name
	}
	return names
}

// CanonicalName returns IMB's spelling of a benchmark name given in any
// case ("allreduce" → "Allreduce"), as IMB-MPI1 matches names.
func CanonicalName(name string) (string, error) {
	b, err := lookup(name)
	if err != nil {
		return "", err
	}
	return b.name, nil
}

// lookup finds a benchmark by name, in any case.
func lookup(name string) (benchmark, error) {
	for _, b := range benchmarks() {
		if strings.EqualFold(b.name, name) {
			return b, nil
		}
	}
	return benchmark{}, fmt.Errorf("unknown benchmark %q: want one of %s", name, strings.Join(Names(), ", "))
}

// processCounts returns the process counts IMB runs a benchmark at in a
// job of size ranks with -npmin npmin (IMB.c main): two processes for
// PingPong and PingPing (none in a one-rank job, where IMB calls them
// invalid), else npmin capped to size, doubling up to size.
func processCounts(k kind, size, npmin int) []int {
	if k == kindSingle {
		if size < 2 {
			return nil
		}
		return []int{2}
	}
	np := max(1, min(size, npmin))
	counts := []int{np}
	for np < size {
		np = min(2*np, size)
		counts = append(counts, np)
	}
	return counts
}
