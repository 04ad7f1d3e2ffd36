package imb

// reductionUnit is the size of IMB's reduction element, MPI_FLOAT.
const reductionUnit = 4

// sizes returns the message sizes a benchmark runs at, as IMB.c's size loop
// makes them. For -msglog MIN:MAX: 0, then 2^MIN rounded up to the element
// size, doubling up to 2^MAX rounded down to it (so bytes give 0, 1, 2, 4,
// …, 4 MiB and float32 reductions 0, 4, 8, …, 4 MiB). For -msglen: the
// listed sizes in order, each rounded up to the element size as IMB does,
// dropping a size already listed (IMB would run a rounded-up 1 and 2 again
// as 4; one row per size keeps the table's rows unique). Barrier runs once,
// with no size: it returns [0].
func sizes(o *Options, b benchmark) []int {
	if b.kind == kindSync {
		return []int{0}
	}
	unit := 1
	if b.reduction {
		unit = reductionUnit
	}
	roundUp := func(n int) int { return (n + unit - 1) / unit * unit }
	if len(o.MsgLen) > 0 {
		var out []int
		seen := make(map[int]bool)
		for _, s := range o.MsgLen {
			s = roundUp(s)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		return out
	}
	maxMsg := (1 << o.MaxLog) / unit * unit
	out := []int{0}
	size := 0
	for size < maxMsg {
		if size == 0 {
			size = min(maxMsg, roundUp(1<<o.MinLog))
		} else {
			size = min(maxMsg, 2*size)
		}
		out = append(out, size)
	}
	return out
}
