package layout

import "math/bits"

// Stream domains: ASCII "hpcb\x00" plus a three-letter tag, read
// big-endian. They are part of the layout contract (package doc).
const (
	DomainShuffle     uint64 = 0x68706362007a3166 // "z1f": -z, file per process
	DomainDeal        uint64 = 0x68706362007a3173 // "z1s": -z, shared file
	DomainRandom      uint64 = 0x68706362007a3272 // "z2r": -z -z
	DomainReorder     uint64 = 0x68706362005a3172 // "Z1r": -Z
	DomainPermutation uint64 = 0x68706362005a3270 // "Z2p": -Z -Z
	golden            uint64 = 0x9e3779b97f4a7c15
	feistelRounds            = 6
)

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// stream is a splitmix64 generator.
type stream struct{ x uint64 }

// newStream seeds a stream for seed, a domain constant and a per-rank
// value a.
func newStream(seed, domain, a uint64) stream { return stream{mix(mix(seed^domain) + a)} }

func (s *stream) next() uint64 {
	s.x += golden
	return mix(s.x)
}

// below returns a number in [0, n) (0 when n is 0).
func (s *stream) below(n uint64) uint64 {
	hi, _ := bits.Mul64(s.next(), n)
	return hi
}

// feistel is a keyed bijection of [0, n) (cycle walking over a balanced
// Feistel network on the smallest even bit width that holds n-1).
type feistel struct {
	n    uint64
	half uint
	mask uint64
	keys [feistelRounds]uint64
}

func newFeistel(n uint64, s stream) feistel {
	f := feistel{n: n}
	if n > 1 {
		f.half = uint(bits.Len64(n-1)+1) / 2
	}
	f.mask = 1<<f.half - 1
	for r := range f.keys {
		f.keys[r] = s.next()
	}
	return f
}

func (f *feistel) round(x uint64) uint64 {
	l, r := x>>f.half, x&f.mask
	for _, k := range f.keys {
		l, r = r, l^(mix(r^k)&f.mask)
	}
	return l<<f.half | r
}

// at returns the image of i < n.
func (f *feistel) at(i uint64) uint64 {
	if f.n <= 1 {
		return 0
	}
	// The network permutes [0, 4^half), so the cycle through i comes back
	// below n: at i itself at the latest. Each step lands below n with
	// probability n/4^half > 1/4.
	x := f.round(i)
	for x >= f.n {
		x = f.round(x)
	}
	return x
}
