package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hpcbench/hpcbench/report"
)

// readArchive reads the archive at path for report, compare and plot: the
// one place a file is accepted as an archive or refused (report.ReadJSON
// checks the content), so the three accept and refuse the same files with
// the same words. What each does with an archive it took may still fail
// for its own reasons: a view or a chart that needs a table the archive
// lacks. Its errors name the path once, first, and are one line:
// "F: no such file or directory", "F: line 3, column 14: tables[0].rows:
// a number, want a list of objects".
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
		msg := strings.TrimPrefix(err.Error(), "report: ")
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = strings.Replace(msg, pe.Error(), pe.Err.Error(), 1) // the path once
		}
		return nil, fmt.Errorf("%s: %s", path, oneLine(msg))
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
