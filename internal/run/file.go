package run

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/report"
)

// CheckOutput reports, before any work, why path cannot be written as an
// output file: empty, a directory, or in a directory that does not exist
// or where no file can be created (not writable, read-only, /proc). It
// finds the last by creating a file there and removing it at once, as
// WriteFile's temporary file will be created, so it leaves nothing.
func CheckOutput(path string) error {
	if path == "" {
		return errors.New("\"\": want a file name")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory, want a file", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, bare(err))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, bare(err))
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("%s: directory %s is not writable", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, bare(err))
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("%s: cannot remove a file created in %s: %w", path, dir, bare(err))
	}
	return nil
}

// bare returns err without the path of an *fs.PathError, whose path may
// be a temporary file's that means nothing to the user.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFile writes through a temporary file in the same directory and
// renames it into place, so a failed run never leaves a half-written file.
func WriteFile(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	// CreateTemp makes it 0600; a result file is for others to read too
	// (a CI baseline, a shared results directory), as C's fopen makes it.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	return nil
}

// distinctOutputs refuses two outputs (or an output and the benchmark's
// data) that name one file, by path or, for files that exist, as the same
// file (a link): one would replace the other, and a run would report
// success with one of them lost. Two mentions of one option naming one
// file (a test script's tests) are one output.
func distinctOutputs(outs []Output) error {
	type seen struct {
		o   Output
		abs string
		fi  os.FileInfo
	}
	var prev []seen
	for _, o := range outs {
		abs, err := filepath.Abs(o.Path)
		if err != nil {
			abs = filepath.Clean(o.Path)
		}
		fi, _ := os.Stat(o.Path)
		for _, p := range prev {
			same := p.abs == abs || (fi != nil && p.fi != nil && os.SameFile(fi, p.fi))
			if !same || p.o.Flag == o.Flag {
				continue
			}
			return fmt.Errorf("%s %s and %s %s name one file: one would replace the other; give each its own", p.o.Flag, p.o.Path, o.Flag, o.Path)
		}
		prev = append(prev, seen{o, abs, fi})
	}
	return nil
}

// OptionalOutput is the list of one output file named by flag, or none
// when path is empty: a Plan's Outputs for --output.
func OptionalOutput(flag, path string) []Output {
	if path == "" {
		return nil
	}
	return []Output{{Flag: flag, Path: path}}
}

// WriteOutput writes res to path, --output's file, atomically: as CSV
// when its name ends in .csv, else as JSON. An empty path writes nothing.
func WriteOutput(path string, res *report.Result) error {
	if path == "" {
		return nil
	}
	f := report.FormatJSON
	if strings.HasSuffix(path, ".csv") {
		f = report.FormatCSV
	}
	return WriteFile(path, func(w io.Writer) error { return report.Write(w, res, f) })
}
