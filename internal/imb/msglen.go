package imb

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hpcbench/hpcbench/internal/units"
)

// maxMsglenFile bounds how much of a -msglen file is read.
const maxMsglenFile = 1 << 20

// ParseMsglen parses the contents of a -msglen file as IMB-MPI1 reads it:
// one message size per line, in bytes, optionally with a k or m suffix
// (1024 and 1024², in any case; g and the KiB, MiB, GiB spellings are
// accepted too); lines starting with # and blank lines are skipped. Sizes
// keep the file's order. Unlike IMB, which warns and skips a bad line, a
// bad line is an error naming its line number; so are a size above
// MaxMsgSize, more than MaxSizes sizes, and a file with none.
func ParseMsglen(data []byte) ([]int, error) {
	var sizes []int
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		n, err := units.ParseSize(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if n > MaxMsgSize {
			return nil, fmt.Errorf("line %d: size %d: must be in [0, %d]", i+1, n, MaxMsgSize)
		}
		if len(sizes) == MaxSizes {
			return nil, fmt.Errorf("line %d: more than %d sizes", i+1, MaxSizes)
		}
		sizes = append(sizes, int(n))
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("no sizes: want one size per line, in bytes or with a k or m suffix; # starts a comment")
	}
	return sizes, nil
}

// readMsglen reads and parses the -msglen file at path.
func readMsglen(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMsglenFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMsglenFile {
		return nil, fmt.Errorf("larger than %d bytes", maxMsglenFile)
	}
	return ParseMsglen(data)
}
