package imb

import "github.com/hpcbench/hpcbench/collectives"

// Datatype and Op are the collectives package's, so that *collectives.Comm
// satisfies Comm.
type (
	// Datatype names the element type of a reduction.
	Datatype = collectives.Datatype
	// Op names a reduction operation.
	Op = collectives.Op
)

// The element type and operation of IMB's reductions: MPI_FLOAT, MPI_SUM.
const (
	Float32 = collectives.Float32
	Sum     = collectives.Sum
)
