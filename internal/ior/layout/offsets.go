package layout

import (
	"fmt"
	"math"
)

// Access orders for Geometry.RandomOffset, the number of -z flags.
const (
	// Sequential transfers, in file order within each block.
	Sequential = 0
	// Shuffled (-z): each block's transfers in a random order (the whole
	// segment's transfers dealt to ranks on a shared file).
	Shuffled = 1
	// RandomBlocks (-z -z, or more): every segment goes to a random block of
	// the file; blocks may repeat.
	RandomBlocks = 2
)

// Geometry holds the options that place the transfers in a file.
type Geometry struct {
	// BlockSize is -b, the bytes per rank per segment.
	BlockSize int64
	// TransferSize is -t, the bytes per I/O call.
	TransferSize int64
	// Segments is -s.
	Segments int
	// NumTasks is the number of ranks taking part (-N).
	NumTasks int
	// FilePerProc is -F.
	FilePerProc bool
	// RandomOffset is how many times -z was given: Sequential, Shuffled,
	// or RandomBlocks for 2 and more.
	RandomOffset int
	// Seed is the effective --random-offset-seed (see OffsetSeed); it is
	// used only when RandomOffset > 0.
	Seed uint64
	// FileBlocks, if between 1 and FileSize()/BlockSize, is the number of
	// blocks -z -z draws from instead: those of a smaller file being
	// read (one written with fewer segments). 0 means all of FileSize().
	FileBlocks int64
}

// OffsetSeed returns the seed for Geometry.Seed from the value of
// --random-offset-seed: IOR's default -1 means "derived from the run", and
// here that is the data signature, which every rank already shares. Any
// other value is used as given.
func OffsetSeed(flag int64, signature uint64) uint64 {
	if flag == -1 {
		return signature
	}
	return uint64(flag)
}

// CheckTransfer is the one check of -b against -t: both positive, and -b
// a whole number of transfers. The command line's Validate and
// Geometry.Validate both use it, so the two say the same.
func CheckTransfer(block, transfer int64) error {
	switch {
	case transfer <= 0:
		return fmt.Errorf("-t must be > 0 (got %d)", transfer)
	case block <= 0:
		return fmt.Errorf("-b must be > 0 (got %d)", block)
	case block < transfer:
		return fmt.Errorf("-b %d is not a multiple of -t %d (it is smaller)", block, transfer)
	case block%transfer != 0:
		return fmt.Errorf("-b %d is not a multiple of -t %d", block, transfer)
	}
	return nil
}

// Validate checks the sizes and counts.
func (g Geometry) Validate() error {
	switch {
	case CheckTransfer(g.BlockSize, g.TransferSize) != nil:
		return fmt.Errorf("%w: %w", ErrInvalid, CheckTransfer(g.BlockSize, g.TransferSize))
	case g.Segments < 0:
		return fmt.Errorf("%w: -s %d: segment count must not be negative", ErrInvalid, g.Segments)
	case g.NumTasks < 1:
		return fmt.Errorf("%w: %d tasks: need at least one", ErrInvalid, g.NumTasks)
	case g.RandomOffset < 0:
		return fmt.Errorf("%w: random offset level %d is negative", ErrInvalid, g.RandomOffset)
	case g.FileBlocks < 0:
		return fmt.Errorf("%w: %d file blocks is negative", ErrInvalid, g.FileBlocks)
	}
	perSeg := g.BlockSize
	if !g.FilePerProc {
		if int64(g.NumTasks) > math.MaxInt64/g.BlockSize {
			return fmt.Errorf("%w: %d tasks × -b %d overflows a file offset", ErrInvalid, g.NumTasks, g.BlockSize)
		}
		perSeg *= int64(g.NumTasks)
	}
	if g.Segments > 0 && perSeg > math.MaxInt64/int64(g.Segments) {
		return fmt.Errorf("%w: -s %d segments of %d bytes overflow a file offset", ErrInvalid, g.Segments, perSeg)
	}
	if g.BlockSize/g.TransferSize > math.MaxInt32 {
		return fmt.Errorf("%w: -b %d / -t %d: more than 2^31 transfers per block", ErrInvalid, g.BlockSize, g.TransferSize)
	}
	return nil
}

// FileSize returns the size of one file when every transfer has been
// written: Segments*BlockSize with FilePerProc, Segments*NumTasks*BlockSize
// for a shared file. The geometry must be valid.
func (g Geometry) FileSize() int64 {
	if g.FilePerProc {
		return int64(g.Segments) * g.BlockSize
	}
	return int64(g.Segments) * int64(g.NumTasks) * g.BlockSize
}

// Plan is the precomputed list of one rank's transfer offsets, in the
// order they are made: offset(s, j) = base(s) + within[j], where base(s) is
// s*stride + start, or a stored per-segment value for -z -z. Reading it
// does not allocate and draws no random numbers, so it belongs before the
// timed loop and its accessors inside it. A Plan is immutable and safe for
// concurrent use.
type Plan struct {
	segments      int
	stride, start int64
	bases         []int64 // per segment, -z -z only
	within        []int64 // per transfer of a segment
}

// Plan computes the offsets of pretendRank's transfers (the rank whose
// data is moved: for a read with -C or -Z, the rank being read), following
// the package documentation. It costs O(BlockSize/TransferSize) time and
// memory, plus O(Segments) for -z -z.
func (g Geometry) Plan(pretendRank int) (Plan, error) {
	if err := g.Validate(); err != nil {
		return Plan{}, err
	}
	if pretendRank < 0 || pretendRank >= g.NumTasks {
		return Plan{}, fmt.Errorf("%w: rank %d outside 0..%d", ErrInvalid, pretendRank, g.NumTasks-1)
	}
	k := int(g.BlockSize / g.TransferSize)
	b, t, n := g.BlockSize, g.TransferSize, int64(g.NumTasks)
	p := Plan{segments: g.Segments, stride: b, within: make([]int64, k)}
	if !g.FilePerProc {
		p.stride = n * b
	}
	for j := range p.within {
		p.within[j] = int64(j) * t
	}
	switch {
	case g.RandomOffset == Sequential:
		if !g.FilePerProc {
			p.start = int64(pretendRank) * b
		}
	case g.RandomOffset == Shuffled && g.FilePerProc:
		st := newStream(g.Seed, DomainShuffle, uint64(pretendRank))
		for i := k - 1; i > 0; i-- {
			j := st.below(uint64(i + 1))
			p.within[i], p.within[j] = p.within[j], p.within[i]
		}
	case g.RandomOffset == Shuffled:
		f := newFeistel(uint64(g.NumTasks)*uint64(k), newStream(g.Seed, DomainDeal, 0))
		first := uint64(pretendRank) * uint64(k)
		for j := range p.within {
			p.within[j] = int64(f.at(first+uint64(j))) * t
		}
	default: // RandomBlocks
		blocks := uint64(g.FileSize() / b)
		if g.FileBlocks > 0 && uint64(g.FileBlocks) < blocks {
			blocks = uint64(g.FileBlocks)
		}
		st := newStream(g.Seed, DomainRandom, uint64(pretendRank))
		p.bases = make([]int64, g.Segments)
		for s := range p.bases {
			p.bases[s] = int64(st.below(blocks)) * b
		}
		if len(p.bases) > 0 && (g.FilePerProc || pretendRank == 0) {
			p.bases[0] = int64(blocks-1) * b
		}
	}
	return p, nil
}

// Segments returns the number of segments.
func (p Plan) Segments() int { return p.segments }

// PerSegment returns the number of transfers per segment,
// BlockSize/TransferSize.
func (p Plan) PerSegment() int { return len(p.within) }

// Len returns the number of transfers, Segments()*PerSegment().
func (p Plan) Len() int { return p.segments * len(p.within) }

// Offset returns the file offset of transfer j of segment s, for
// 0 ≤ s < Segments() and 0 ≤ j < PerSegment(); j out of range panics, s
// out of range gives a meaningless offset (or panics for -z -z).
func (p Plan) Offset(s, j int) int64 {
	if p.bases != nil {
		return p.bases[s] + p.within[j]
	}
	return int64(s)*p.stride + p.start + p.within[j]
}

// At returns the offset of the n-th transfer in order, 0 ≤ n < Len():
// Offset(n / PerSegment(), n % PerSegment()). The engine uses it to resume
// or to wrap around (stonewalling wear-out); nested loops over Offset
// avoid the division.
func (p Plan) At(n int) int64 {
	k := len(p.within)
	return p.Offset(n/k, n%k)
}

// AppendOffsets appends all Len() offsets, in order, to dst and returns
// the extended slice. It is for tests and dumps: the flat list costs
// 8 bytes per transfer.
func (p Plan) AppendOffsets(dst []int64) []int64 {
	for s := range p.segments {
		for j := range p.within {
			dst = append(dst, p.Offset(s, j))
		}
	}
	return dst
}
