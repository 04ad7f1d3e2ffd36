package hostlist

import (
	"strconv"
	"strings"
)

// ProcessMapping returns the PMI_process_mapping value of l, which MPICH
// reads in MPI_Init to learn which ranks share a host
// (MPIR_NODEMAP_populate_ids_from_mapping): "(vector,(a,b,c),...)", each
// triple "from node a, b consecutive nodes with c consecutive ranks each",
// the triples repeated from the first when ranks remain after the last.
// Nodes are numbered by their first rank, so node 0 runs rank 0 and the
// repetition starts where MPICH restarts it. The value is the shortest
// repeating pattern of the layout: N ranks on one host give
// "(vector,(0,1,N))", H hosts of K ranks each "(vector,(0,H,K))",
// round-robin placement "(vector,(0,H,1))", and an irregular layout
// several triples. l must place ranks 0 to N-1 once
// each, as Place's layouts do.
//
// A layout that does not repeat (many hosts, each a different number of
// ranks) takes a triple per run of ranks, and its value may exceed PMI's
// 1024-byte value limit; a caller that serves it over PMI checks the
// length.
func (l Layout) ProcessMapping() string {
	return processMapping(l.HostOf())
}

// processMapping returns the mapping of hostOf, each rank's node. The
// nodes are renumbered by their first rank (MPICH compares node ids for
// equality only, and restarts the triples at the first whose node is 0).
func processMapping(hostOf []int) string {
	if len(hostOf) == 0 {
		return ""
	}
	ids := renumber(hostOf)
	runs := runsOf(ids[:period(ids)])
	if len(runs) == 1 {
		// One node: its ranks said at once, "(vector,(0,1,N))", rather
		// than as one rank repeated.
		runs[0].size = len(ids)
	}
	var b strings.Builder
	b.WriteString("(vector")
	for i := 0; i < len(runs); {
		// A triple: runs of one size on consecutive nodes.
		j := i + 1
		for j < len(runs) && runs[j].size == runs[i].size && runs[j].node == runs[j-1].node+1 {
			j++
		}
		b.WriteString(",(")
		b.WriteString(strconv.Itoa(runs[i].node))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(j - i))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(runs[i].size))
		b.WriteByte(')')
		i = j
	}
	b.WriteByte(')')
	return b.String()
}

// renumber returns ids numbered 0, 1, ... in the order of their first
// appearance in ids.
func renumber(ids []int) []int {
	out := make([]int, len(ids))
	seen := map[int]int{}
	for i, id := range ids {
		n, ok := seen[id]
		if !ok {
			n = len(seen)
			seen[id] = n
		}
		out[i] = n
	}
	return out
}

// period returns the smallest p such that s[i] == s[i+p] for every i: s
// is its first p elements repeated, the last repetition cut short. It is
// len(s) minus the longest proper prefix of s that is also a suffix
// (Knuth, Morris and Pratt's failure function).
func period(s []int) int {
	fail := make([]int, len(s)) // fail[i]: longest proper border of s[:i+1]
	for i := 1; i < len(s); i++ {
		k := fail[i-1]
		for k > 0 && s[i] != s[k] {
			k = fail[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		fail[i] = k
	}
	return len(s) - fail[len(s)-1]
}

// run is a node and the consecutive ranks it holds.
type run struct{ node, size int }

// runsOf returns the runs of equal consecutive elements of ids.
func runsOf(ids []int) []run {
	var out []run
	for i, id := range ids {
		if i > 0 && id == ids[i-1] {
			out[len(out)-1].size++
			continue
		}
		out = append(out, run{node: id, size: 1})
	}
	return out
}
