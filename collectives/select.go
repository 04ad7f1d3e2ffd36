package collectives

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// coll identifies a collective.
type coll uint8

const (
	collBarrier coll = iota
	collBcast
	collScatter
	collGather
	collAllgather
	collAlltoall
	collReduce
	collAllreduce
	numColls
)

// alg identifies an algorithm; the same id may serve several collectives.
type alg uint8

const (
	algAuto alg = iota
	algDissemination
	algBinomial
	algLinear
	algScatterRing
	algRecursiveDoubling
	algBruck
	algRing
	algScattered
	algPairwise
	algRabenseifner
	algGatherRelease
	algReduceBcast
	numAlgs
)

// collNames, algNames and collAlgs are the read-only tables behind the
// names: never written after initialisation.
var (
	collNames = [numColls]string{
		collBarrier: "barrier", collBcast: "bcast", collScatter: "scatter", collGather: "gather",
		collAllgather: "allgather", collAlltoall: "alltoall", collReduce: "reduce", collAllreduce: "allreduce",
	}
	algNames = [numAlgs]string{
		algAuto: "auto", algDissemination: "dissemination", algBinomial: "binomial", algLinear: "linear",
		algScatterRing: "scatter-ring", algRecursiveDoubling: "recursive-doubling", algBruck: "bruck",
		algRing: "ring", algScattered: "scattered", algPairwise: "pairwise", algRabenseifner: "rabenseifner",
		algGatherRelease: "gather-release", algReduceBcast: "reduce-bcast",
	}
	collAlgs = [numColls][]alg{
		collBarrier:   {algDissemination, algGatherRelease},
		collBcast:     {algBinomial, algScatterRing},
		collScatter:   {algBinomial, algLinear},
		collGather:    {algBinomial, algLinear},
		collAllgather: {algRecursiveDoubling, algBruck, algRing},
		collAlltoall:  {algBruck, algScattered, algPairwise},
		collReduce:    {algBinomial, algRabenseifner},
		collAllreduce: {algRecursiveDoubling, algRabenseifner, algRing, algReduceBcast},
	}
)

func (c coll) String() string { return collNames[c] }
func (a alg) String() string  { return algNames[a] }

// Collectives lists the collectives' names, as Options.Algorithms and
// Comm.Algorithm take them: barrier, bcast, scatter, gather, allgather,
// alltoall, reduce, allreduce.
func Collectives() []string { return slices.Clone(collNames[:]) }

// Algorithms lists the algorithms of the collective named coll, or nil if
// there is no such collective. "auto" is accepted wherever an algorithm is
// but is not listed.
func Algorithms(coll string) []string {
	id, ok := lookupColl(coll)
	if !ok {
		return nil
	}
	names := make([]string, len(collAlgs[id]))
	for i, a := range collAlgs[id] {
		names[i] = a.String()
	}
	return names
}

// lookupColl returns the collective named name (case-insensitive).
func lookupColl(name string) (coll, bool) {
	for id, n := range collNames {
		if strings.EqualFold(n, name) {
			return coll(id), true
		}
	}
	return 0, false
}

// lookupAlgorithm resolves a collective and algorithm name pair
// (case-insensitive; "auto" is algAuto), with an error naming the valid
// choices, for the caller to wrap with its context.
func lookupAlgorithm(collName, algName string) (alg, error) {
	id, ok := lookupColl(collName)
	if !ok {
		return 0, fmt.Errorf("unknown collective %q: have %s", collName, strings.Join(collNames[:], ", "))
	}
	if strings.EqualFold(algName, "auto") {
		return algAuto, nil
	}
	for _, a := range collAlgs[id] {
		if strings.EqualFold(a.String(), algName) {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown %s algorithm %q: have auto, %s", id, algName, strings.Join(Algorithms(collName), ", "))
}

// ParseAlgorithms parses a comma-separated list of collective=algorithm
// pairs, such as "allreduce=ring,bcast=binomial", into a map for
// Options.Algorithms. Names are case-insensitive and stored in lower case;
// spaces around names are ignored, and so is an empty spec. The error names
// the offending pair and lists the valid collectives or algorithms.
func ParseAlgorithms(spec string) (map[string]string, error) {
	m := make(map[string]string)
	for pair := range strings.SplitSeq(spec, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		collName, algName, ok := strings.Cut(pair, "=")
		collName, algName = strings.ToLower(strings.TrimSpace(collName)), strings.ToLower(strings.TrimSpace(algName))
		if !ok || collName == "" || algName == "" {
			return nil, fmt.Errorf("collectives: algorithm choice %q: want collective=algorithm, for example allreduce=ring", pair)
		}
		if _, err := lookupAlgorithm(collName, algName); err != nil {
			return nil, fmt.Errorf("collectives: algorithm choice %q: %w", pair, err)
		}
		if prev, dup := m[collName]; dup && prev != algName {
			return nil, fmt.Errorf("collectives: algorithm choice %q: %s already set to %s", pair, collName, prev)
		}
		m[collName] = algName
	}
	return m, nil
}

// Algorithm reports the algorithm this Comm runs for the collective named
// coll on a message of bytes bytes, or "" if there is no such collective.
// Collective calls use the same choice, so benchmark tables can print it.
//
// bytes is what IMB prints as #bytes: the buffer for bcast; the vector for
// reduce and allreduce; one rank's block for scatter, gather and allgather
// (len(recv), len(send) and len(send)); the block sent to each peer for
// alltoall (len(send)/size); barrier ignores it. With p ranks and the
// Thresholds t, the automatic choice is:
//
//	barrier    gather-release if p == 2 and the connection is shared memory, or crowded;
//	           else dissemination
//	bcast      binomial if p < t.BcastMinProcs or bytes <= t.BcastShortMsg, else scatter-ring
//	scatter    binomial
//	gather     binomial
//	allgather  p a power of two: recursive-doubling if bytes*p < t.AllgatherLongMsg, else ring
//	           otherwise:       bruck if bytes*p < t.AllgatherShortMsg, else ring
//	alltoall   bruck if p >= t.AlltoallMinProcs and bytes <= t.AlltoallShortMsg,
//	           else scattered if bytes <= t.AlltoallMediumMsg, else pairwise
//	reduce     binomial if bytes <= t.ReduceShortMsg or bytes/8 < pof2(p), else rabenseifner
//	allreduce  reduce-bcast if crowded,
//	           else recursive-doubling if bytes <= t.AllreduceShortMsg or bytes/8 < pof2(p),
//	           else ring if p is not a power of two and bytes >= t.AllreduceLongMsg >= 0,
//	           else rabenseifner
//
// where pof2(p) is the largest power of two not above p (bytes/8 stands for
// MPICH's element count, taking the largest element size), and crowded
// means p > 2 ranks all on one host that runs more than four ranks per CPU
// (fabric.Traits.Crowded: every wait there sleeps almost at once, so
// each message costs a process wake-up and the algorithm with the fewest
// messages wins at every size; at 256 ranks on 2 CPUs, gather-release
// takes a barrier from 38 to 16 ms, and reduce-bcast an Allreduce of 4
// bytes from 33 to 17 ms and of 16 KiB from 117 to 17 ms). A forced
// algorithm (Options.Algorithms) is reported as is, except that
// allgather's recursive-doubling needs a power-of-two p and runs, and is
// reported as, bruck otherwise.
func (c *Comm) Algorithm(coll string, bytes int) string {
	id, ok := lookupColl(coll)
	if !ok {
		return ""
	}
	return c.choose(id, bytes).String()
}

// choose picks the algorithm for collective id on bytes bytes; see
// Algorithm.
func (c *Comm) choose(id coll, bytes int) alg {
	p, t := c.size, &c.th
	pow2 := p&(p-1) == 0
	if a := c.forced[id]; a != algAuto {
		if id == collAllgather && a == algRecursiveDoubling && !pow2 {
			return algBruck
		}
		return a
	}
	switch id {
	case collBarrier:
		if (p == 2 && c.shared[1-c.rank]) || c.crowded {
			return algGatherRelease
		}
		return algDissemination
	case collBcast:
		if p < t.BcastMinProcs || bytes <= t.BcastShortMsg {
			return algBinomial
		}
		return algScatterRing
	case collScatter, collGather:
		return algBinomial
	case collAllgather:
		total := bytes * p
		switch {
		case pow2 && total < t.AllgatherLongMsg:
			return algRecursiveDoubling
		case !pow2 && total < t.AllgatherShortMsg:
			return algBruck
		}
		return algRing
	case collAlltoall:
		switch {
		case p >= t.AlltoallMinProcs && bytes <= t.AlltoallShortMsg:
			return algBruck
		case bytes <= t.AlltoallMediumMsg:
			return algScattered
		}
		return algPairwise
	case collReduce:
		if bytes <= t.ReduceShortMsg || bytes/8 < pof2(p) {
			return algBinomial
		}
		return algRabenseifner
	default: // collAllreduce
		switch {
		case c.crowded:
			return algReduceBcast
		case bytes <= t.AllreduceShortMsg || bytes/8 < pof2(p):
			return algRecursiveDoubling
		case !pow2 && t.AllreduceLongMsg >= 0 && bytes >= t.AllreduceLongMsg:
			return algRing
		}
		return algRabenseifner
	}
}

// pof2 returns the largest power of two not above p (p >= 1).
func pof2(p int) int { return 1 << (bits.Len(uint(p)) - 1) }
