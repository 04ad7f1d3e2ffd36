package twophase

import (
	"fmt"
	"sort"
)

// Request is one rank's access: N pieces of Size bytes each, piece i at
// file offset At(i), in increasing order without overlap
// (At(i)+Size <= At(i+1)).
type Request struct {
	N    int64
	Size int64
	At   func(i int64) int64
}

// Extent returns the bytes the request spans, [first, end); an empty
// request spans nothing.
func (r Request) Extent() Extent {
	if r.N <= 0 || r.Size <= 0 {
		return Extent{}
	}
	return Extent{Start: r.At(0), End: r.At(r.N-1) + r.Size}
}

// first returns the first piece that ends after lo (N if none).
func (r Request) first(lo int64) int64 {
	return int64(sort.Search(int(r.N), func(i int) bool { return r.At(int64(i))+r.Size > lo }))
}

// Part is the bytes of one piece that fall in a range: piece Piece,
// bytes [From, To) of it, at file offset Off = At(Piece)+From.
type Part struct {
	Piece    int64
	From, To int64
	Off      int64
}

// Len is the part's length in bytes.
func (p Part) Len() int64 { return p.To - p.From }

// Parts calls f for each part of the request's pieces inside rng, in file
// order, and returns their total length. f may be nil (to count).
func (r Request) Parts(rng Extent, f func(Part)) int64 {
	if rng.Empty() || r.N <= 0 {
		return 0
	}
	var total int64
	for i := r.first(rng.Start); i < r.N; i++ {
		at := r.At(i)
		if at >= rng.End {
			break
		}
		p := Part{Piece: i, From: max(at, rng.Start) - at, To: min(at+r.Size, rng.End) - at}
		p.Off = at + p.From
		total += p.Len()
		if f != nil {
			f(p)
		}
	}
	return total
}

// span returns the requested bytes inside rng: from the first requested
// byte to the last, empty if none.
func (r Request) span(rng Extent) Extent {
	if rng.Empty() || r.N <= 0 {
		return Extent{}
	}
	i := r.first(rng.Start)
	if i >= r.N || r.At(i) >= rng.End {
		return Extent{}
	}
	// The last piece that starts before rng.End.
	j := int64(sort.Search(int(r.N), func(k int) bool { return r.At(int64(k)) >= rng.End })) - 1
	return Extent{Start: max(r.At(i), rng.Start), End: min(r.At(j)+r.Size, rng.End)}
}

// Extent is the byte range [Start, End) of a file; it is empty when End
// is not after Start.
type Extent struct {
	Start, End int64
}

// Empty reports whether e holds no byte.
func (e Extent) Empty() bool { return e.End <= e.Start }

// Len is e's length in bytes (0 when empty).
func (e Extent) Len() int64 {
	if e.Empty() {
		return 0
	}
	return e.End - e.Start
}

// String is "[start, end)".
func (e Extent) String() string { return fmt.Sprintf("[%d, %d)", e.Start, e.End) }

// Interleaved applies ROMIO's test to the ranks' extents, in rank order:
// the accesses interleave when some rank's first byte comes before the
// previous rank's last byte (and that rank accesses anything). ROMIO
// calls it "a rudimentary check": ranks out of file order do not count.
func Interleaved(ext []Extent) bool {
	for i := 1; i < len(ext); i++ {
		if !ext[i].Empty() && !ext[i-1].Empty() && ext[i].Start < ext[i-1].End-1 {
			return true
		}
	}
	return false
}

// Range returns the smallest extent holding every non-empty one.
func Range(ext []Extent) Extent {
	var r Extent
	for _, e := range ext {
		switch {
		case e.Empty():
		case r.Empty():
			r = e
		default:
			r = Extent{Start: min(r.Start, e.Start), End: max(r.End, e.End)}
		}
	}
	return r
}

// FileDomains splits rng into n contiguous domains of ceil(len/n) bytes,
// as ROMIO's ADIOI_Calc_file_domains does: the last domains may be
// shorter, and those past the end empty. With a striping unit su > 0 each
// domain's end moves to the nearest multiple of su (ROMIO's alignment to
// file lock boundaries; a tie moves it up), the last one ending at the end
// of rng.
func FileDomains(rng Extent, n int, su int64) []Extent {
	if n < 1 {
		n = 1
	}
	d := make([]Extent, n)
	if rng.Empty() {
		return d
	}
	size := (rng.Len() + int64(n) - 1) / int64(n)
	lo := rng.Start
	for i := range d {
		end := rng.Start + int64(i+1)*size
		if su > 0 {
			if front := end % su; front < su-front {
				end -= front
			} else {
				end += su - front
			}
		}
		if i == n-1 {
			end = rng.End
		}
		end = min(end, rng.End)
		if lo < end {
			d[i] = Extent{Start: lo, End: end}
		}
		lo = max(lo, end)
	}
	return d
}

// Aggregators picks the aggregating ranks among the first active ranks of
// a job whose rank r runs on hosts[r] ("" or a short slice counts as one
// unnamed host): hosts in the order they first appear, up to perHost
// ranks on each (0: all), lowest ranks first, taken host by host, then
// cut to nodes (0: no cut). There is always at least one.
func Aggregators(hosts []string, active, nodes, perHost int) []int {
	if active < 1 {
		return nil
	}
	host := func(r int) string {
		if r < len(hosts) {
			return hosts[r]
		}
		return ""
	}
	var order []string
	byHost := map[string][]int{}
	for r := range active {
		h := host(r)
		if _, seen := byHost[h]; !seen {
			order = append(order, h)
		}
		if perHost == 0 || len(byHost[h]) < perHost {
			byHost[h] = append(byHost[h], r)
		}
	}
	var aggs []int
	for _, h := range order {
		aggs = append(aggs, byHost[h]...)
	}
	if nodes > 0 && len(aggs) > nodes {
		aggs = aggs[:nodes]
	}
	return aggs
}

// Plan is one collective phase's division of work: the aggregators, their
// file domains, and the part of each domain they move in each round.
type Plan struct {
	// Aggs are the aggregating ranks; Domains[i] is Aggs[i]'s file
	// domain.
	Aggs    []int
	Domains []Extent
	// Spans[i] is the requested part of Domains[i], from its first
	// requested byte to its last (ROMIO's st_loc and end_loc).
	Spans []Extent
	// BufferSize is cb_buffer_size.
	BufferSize int64
	// Rounds is the rounds of the busiest aggregator (ROMIO's
	// max_ntimes): every rank takes part in that many.
	Rounds int
}

// NewPlan divides the requests (one per rank, in rank order) among aggs
// in rounds of bufSize bytes, the domains aligned to su (0: none).
func NewPlan(reqs []Request, aggs []int, bufSize, su int64) (*Plan, error) {
	if len(aggs) == 0 {
		return nil, fmt.Errorf("collective I/O: no aggregator")
	}
	if bufSize < 1 {
		return nil, fmt.Errorf("collective I/O: %s %d: want at least 1 byte", KeyBufferSize, bufSize)
	}
	ext := make([]Extent, len(reqs))
	for r, q := range reqs {
		ext[r] = q.Extent()
	}
	p := &Plan{Aggs: aggs, Domains: FileDomains(Range(ext), len(aggs), su), BufferSize: bufSize}
	p.Spans = make([]Extent, len(aggs))
	for a, d := range p.Domains {
		var s Extent
		for _, q := range reqs {
			if e := q.span(d); !e.Empty() {
				s = Range([]Extent{s, e})
			}
		}
		p.Spans[a] = s
		p.Rounds = max(p.Rounds, int((s.Len()+bufSize-1)/bufSize))
	}
	return p, nil
}

// Round returns the bytes aggregator a (an index into Aggs) moves in round
// m: cb_buffer_size bytes of its span, from its start; empty once the
// span is done.
func (p *Plan) Round(a, m int) Extent {
	s := p.Spans[a]
	lo := s.Start + int64(m)*p.BufferSize
	if s.Empty() || lo >= s.End {
		return Extent{}
	}
	return Extent{Start: lo, End: min(lo+p.BufferSize, s.End)}
}

// AggIndex returns rank's index in Aggs, or -1 when it does not aggregate.
func (p *Plan) AggIndex(rank int) int {
	for i, r := range p.Aggs {
		if r == rank {
			return i
		}
	}
	return -1
}
