package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/hostmem"
	"github.com/hpcbench/hpcbench/internal/units"
)

// NodeMemory is -M (memoryPerNode): the memory to hold on each node during
// a test, so that less is left for the page cache. It is a byte count or
// a percentage of the node's physical memory.
type NodeMemory struct {
	// Bytes is the size given ("2g"), when Percent is 0.
	Bytes int64
	// Percent, 1 to 100, is the share of physical memory given ("75%").
	Percent int
}

// ParseNodeMemory parses -M: "N%" with N from 0 to 100, or a size as -b
// takes it (2g). IOR 4 reads any value that starts with digits as a
// percentage ("2g" is 2%), contrary to its help ("2g, 75%"); here a size
// is a size.
func ParseNodeMemory(s string) (NodeMemory, error) {
	if num, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		p, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || p < 0 || p > 100 {
			return NodeMemory{}, units.Syntaxf("%q is not a memory share: want a percentage from 0%% to 100%%", s)
		}
		return NodeMemory{Percent: p}, nil
	}
	n, err := cliflag.ParseSize(s)
	if err != nil {
		return NodeMemory{}, fmt.Errorf("%w (or a percentage such as 75%%)", err)
	}
	return NodeMemory{Bytes: n}, nil
}

// Of returns the bytes m asks for on a node with physical bytes of
// memory: Bytes, or Percent of physical (IOR's mem / 100 * percent).
func (m NodeMemory) Of(physical int64) int64 {
	if m.Percent > 0 {
		return physical / 100 * int64(m.Percent)
	}
	return m.Bytes
}

// IsZero reports whether m asks for no memory.
func (m NodeMemory) IsZero() bool { return m.Bytes == 0 && m.Percent == 0 }

// String returns m as -M takes it: "75%" or the bytes.
func (m NodeMemory) String() string {
	if m.Percent > 0 {
		return strconv.Itoa(m.Percent) + "%"
	}
	return strconv.FormatInt(m.Bytes, 10)
}

// nodeMemoryValue binds -M; setting it clears -O memoryPerTask, as IOR's
// directive does: the last one given counts.
type nodeMemoryValue struct{ o *Options }

func (v nodeMemoryValue) String() string {
	if v.o == nil {
		return "0"
	}
	return v.o.MemoryPerNode.String()
}

func (v nodeMemoryValue) Set(s string) error {
	m, err := ParseNodeMemory(s)
	if err != nil {
		return err
	}
	v.o.MemoryPerNode, v.o.MemoryPerTask = m, 0
	return nil
}

func (v nodeMemoryValue) Type() string { return "size|N%" }

// taskMemoryValue binds -O memoryPerTask; setting it clears -M.
type taskMemoryValue struct{ o *Options }

func (v taskMemoryValue) String() string {
	if v.o == nil {
		return "0"
	}
	return strconv.FormatInt(v.o.MemoryPerTask, 10)
}

func (v taskMemoryValue) Set(s string) error {
	n, err := cliflag.ParseSize(s)
	if err != nil {
		return err
	}
	v.o.MemoryPerTask, v.o.MemoryPerNode = n, NodeMemory{}
	return nil
}

func (v taskMemoryValue) Type() string { return "size" }

// MaxTransferSize is the largest -t (Validate refuses more): 2 GiB less 4 KiB, the most one
// read(2) or write(2) moves on Linux (MAX_RW_COUNT). IOR sets no bound,
// but a larger transfer is never one I/O call: IOR's POSIX backend then
// warns "partial write()" on every transfer and retries (or gives up with
// -x), so its figures are no longer IOR's per-call ones.
const MaxTransferSize = 1<<31 - 4096

// BufferBytes returns the memory a rank allocates for the test: the
// transfer buffer (-t) and, with --randomPrefill, the prefill buffer.
// -M and -O memoryPerTask are held on purpose and checked on their own
// against the node's physical memory, as IOR does.
func (o *Options) BufferBytes() int64 {
	t, p := max(0, o.TransferSize), max(0, o.RandomPrefill)
	if t > math.MaxInt64-p {
		return math.MaxInt64
	}
	return t + p
}

// CheckMemory refuses, in one line naming the flag, a test whose buffers
// do not fit this host's memory for its ranks ranks. It checks only what
// depends on the host: -t itself is Validate's.
func (o *Options) CheckMemory(ranks int, host hostmem.HostMemory) error {
	if err := hostmem.BufferError(o.BufferBytes(), ranks, host); err != nil {
		flag := "-t " + hostmem.SizeArg(o.TransferSize)
		if o.RandomPrefill > 0 {
			flag += " --randomPrefill " + hostmem.SizeArg(o.RandomPrefill)
		}
		return fmt.Errorf("%s: %w", flag, err)
	}
	if o.Collective && !o.DryRun {
		// An aggregator's two collective buffers, and the round's
		// messages a rank sends or receives (at most about one more).
		coll := mulSat(3, o.Hints.BufferSize)
		perRank := o.BufferBytes()
		if perRank < math.MaxInt64-coll {
			perRank += coll
		}
		if err := hostmem.BufferError(perRank, ranks, host); err != nil {
			return fmt.Errorf("-c with cb_buffer_size %s (three such buffers a rank) and -t %s: %w",
				hostmem.SizeArg(o.Hints.BufferSize), hostmem.SizeArg(o.TransferSize), err)
		}
	}
	return nil
}
