package mdtest

import "math/bits"

// permutation is -R's pseudo-random order of the items 0..n-1, derived
// from an item's place in the order rather than kept: mdtest shuffles an
// array of every item's number (8 bytes an item, 8 GB at -n 1e9), this
// keeps four round keys. It is a Feistel network over the bit strings of
// an even length that hold n-1, a bijection whatever its round function,
// walked from a value until it lands below n (cycle walking), which keeps
// it a bijection of 0..n-1. The domain is less than 4n, so a walk takes
// fewer than 4 steps on average.
type permutation struct {
	n    uint64
	half uint   // bits per half of the domain
	mask uint64 // the low half's bits
	keys [feistelRounds]uint64
}

// feistelRounds is the number of rounds: four make a Feistel network
// indistinguishable from a random permutation (Luby-Rackoff).
const feistelRounds = 4

// newPermutation returns the order of n > 0 items that seed and stream
// select: the same arguments give the same order on every rank.
func newPermutation(n int64, seed, stream uint64) *permutation {
	w := max(bits.Len64(uint64(n-1)), 2)
	p := &permutation{n: uint64(n), half: uint(w+1) / 2}
	p.mask = 1<<p.half - 1
	k := seed ^ mix64(stream+0x9e3779b97f4a7c15)
	for i := range p.keys {
		k = mix64(k + 0x9e3779b97f4a7c15)
		p.keys[i] = k
	}
	return p
}

// at returns the item at place i (0 <= i < n) of the order.
func (p *permutation) at(i int64) int64 {
	x := uint64(i)
	for {
		x = p.encrypt(x)
		if x < p.n {
			return int64(x)
		}
	}
}

// encrypt is the Feistel network: a bijection of 0..2^(2·half)-1.
func (p *permutation) encrypt(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(mix64(r^k)&p.mask)
	}
	return l<<p.half | r
}

// mix64 is SplitMix64's finalizer: every bit of x affects every bit of
// the result.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
