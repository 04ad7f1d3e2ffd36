package run

import (
	"io"

	"github.com/hpcbench/hpcbench/internal/progress"
)

// newBar returns the progress display of a rank: on the first rank, a
// bar when stderr is a terminal, or plain lines where it is not when
// env asks for them (--progress) and no launcher shows them; nil, which
// draws nothing, elsewhere.
func newBar(stderr io.Writer, first bool, env progress.Env) *progress.Bar {
	if !first {
		return nil
	}
	return progress.ForStderr(stderr, progress.Options{Lines: env.Lines(), LineInterval: env.LineInterval})
}
