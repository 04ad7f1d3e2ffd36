package ior

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// saveStoneCount writes, on rank 0, the transfer count every rank reached
// in a stonewalled write to -O stoneWallingStatusFile, for a later run that
// only reads (IOR's two-run IO500 pattern). The file is written whole or
// not at all.
func (t *tester) saveStoneCount() error {
	path := t.o.StoneWallingStatusFile
	if path == "" || t.rank != 0 || t.stoneRead < 0 {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(t.stoneRead, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("-O stoneWallingStatusFile: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("-O stoneWallingStatusFile: %w", err)
	}
	return nil
}

// loadStoneCount reads, on rank 0, the count a stonewalled write saved and
// shares it, when the test reads without writing.
func (t *tester) loadStoneCount(ctx context.Context) error {
	if t.o.StoneWallingStatusFile == "" || t.o.WriteFile {
		return nil
	}
	var b [8]byte
	n := int64(-1)
	var rerr error
	if t.rank == 0 {
		data, err := os.ReadFile(t.o.StoneWallingStatusFile)
		switch {
		case os.IsNotExist(err):
		case err != nil:
			rerr = fmt.Errorf("-O stoneWallingStatusFile: %w", err)
		default:
			v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			if err != nil || v < 0 {
				rerr = fmt.Errorf("-O stoneWallingStatusFile %s: %q is not a transfer count", t.o.StoneWallingStatusFile, strings.TrimSpace(string(data)))
			}
			n = v
		}
	}
	if rerr != nil {
		n = -2
	}
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	if err := t.c.Bcast(ctx, b[:], 0); err != nil {
		return fmt.Errorf("broadcast: %w", err)
	}
	n = int64(binary.LittleEndian.Uint64(b[:]))
	if n == -2 {
		if rerr == nil {
			rerr = fmt.Errorf("-O stoneWallingStatusFile: rank 0 could not read it")
		}
		return rerr
	}
	t.stoneRead = n
	return nil
}
