package launch

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
)

// lineWriter serializes whole lines from many ranks onto one writer, so
// lines of different ranks never interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (lw *lineWriter) writeLine(prefix, line []byte) {
	lw.mu.Lock()
	lw.buf = append(append(lw.buf[:0], prefix...), line...)
	lw.w.Write(lw.buf) // a closed stdout must not stop the job; errors are dropped as mpiexec does
	lw.mu.Unlock()
}

// forward copies r to lw line by line, prefixing "[rank] " when tag is set,
// until r reports EOF or an error. A line longer than the buffer is passed
// on in pieces; only its first piece carries the prefix.
func forward(r *os.File, lw *lineWriter, rank int, tag bool) {
	defer r.Close()
	var prefix []byte
	if tag {
		prefix = []byte("[" + strconv.Itoa(rank) + "] ")
	}
	br := bufio.NewReaderSize(r, 4096) // a page: 1,024 ranks × 2 streams must stay cheap
	midLine := false
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 {
			p := prefix
			if midLine {
				p = nil
			}
			lw.writeLine(p, b)
			midLine = b[len(b)-1] != '\n'
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
