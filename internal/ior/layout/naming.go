package layout

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every validation error of this package.
var ErrInvalid = errors.New("invalid layout")

// NameSeparator separates several file names in -o (IOR's
// FILENAME_DELIMITER), for spreading file-per-process files over file
// systems.
const NameSeparator = "@"

// Naming holds the options that decide the file each rank opens.
type Naming struct {
	// Base is -o: a path, or several separated by NameSeparator.
	Base string
	// FilePerProc is -F: one file per rank instead of one shared file.
	FilePerProc bool
	// UniqueDir is -u: with FilePerProc, each rank's file goes in its own
	// directory (ignored for a shared file, as in IOR).
	UniqueDir bool
	// MultiFile is -m: every repetition uses its own file, suffixed
	// ".<rep>".
	MultiFile bool
}

// Validate reports an empty name, an empty name between separators, and
// -u with several names (IOR: "cannot use multiple file names with unique
// directories").
func (n Naming) Validate() error {
	if n.Base == "" {
		return fmt.Errorf("%w: -o: empty file name", ErrInvalid)
	}
	names := strings.Split(n.Base, NameSeparator)
	for i, s := range names {
		if s == "" {
			return fmt.Errorf("%w: -o %q: file name %d of %d is empty", ErrInvalid, n.Base, i+1, len(names))
		}
	}
	if n.UniqueDir && n.FilePerProc && len(names) > 1 {
		return fmt.Errorf("%w: -o %q with -u: cannot use multiple file names with unique directories", ErrInvalid, n.Base)
	}
	return nil
}

// root returns the name pretendRank uses before any suffix.
func (n Naming) root(pretendRank int) string {
	if !strings.Contains(n.Base, NameSeparator) {
		return n.Base
	}
	names := strings.Split(n.Base, NameSeparator)
	if !n.FilePerProc || pretendRank < 0 {
		return names[0]
	}
	return names[pretendRank%len(names)]
}

// Dir returns the directory -u gives pretendRank ("/dir/f" → "/dir/3",
// "f" → "3"), which the engine creates before the write; it is "" without
// -u or without FilePerProc.
func (n Naming) Dir(pretendRank int) string {
	if !n.UniqueDir || !n.FilePerProc {
		return ""
	}
	r := n.root(pretendRank)
	return r[:strings.LastIndex(r, "/")+1] + strconv.Itoa(pretendRank)
}

// Name returns the file pretendRank accesses in repetition rep (counted
// from 0), following the rules in the package documentation. Call Validate
// first; Name does not fail.
func (n Naming) Name(pretendRank, rep int) string {
	name := n.root(pretendRank)
	if n.FilePerProc {
		if n.UniqueDir {
			name = n.Dir(pretendRank) + "/" + name[strings.LastIndex(name, "/")+1:]
		}
		name = fmt.Sprintf("%s.%08d", name, pretendRank)
	}
	if n.MultiFile {
		name += "." + strconv.Itoa(rep)
	}
	return name
}
