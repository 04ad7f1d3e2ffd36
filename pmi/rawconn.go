package pmi

import (
	"io"
	"syscall"

	"github.com/hpcbench/hpcbench/internal/rawio"
)

// rawOr returns a rawio.Conn over c's descriptor when c has one, and c
// itself otherwise (net.Pipe in tests). The lines that cross while ranks
// time a phase, a rank's phase report and the launcher's read of it, go
// through it: a read or write through the scheduler after the process has
// been idle wakes the runtime's sysmon thread, which then takes CPU from
// the ranks every 90 µs for milliseconds (see rawio.Conn).
func rawOr(c io.ReadWriter) io.ReadWriter {
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := rawio.NewConn(sc); err == nil {
			return rc
		}
	}
	return c
}
