package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// readArchive reads the archive at path with report.ReadJSON, for report,
// compare and plot. Its errors name the path once, first, and are one
// line: "F: no such file or directory", "F: not an archive: ...".
func readArchive(path string) (*report.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	r, err := report.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, oneLine(strings.TrimPrefix(err.Error(), "report: ")))
	}
	return r, nil
}

// unwrapPath drops the *PathError's own copy of the path from err.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
