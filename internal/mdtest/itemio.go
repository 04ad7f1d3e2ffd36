package mdtest

// itemIO is what a backend offers for mdtest's file create and read in
// one call each, without the aiori.File that Create and Open return (an
// allocation per item, and garbage collections in the timed loop), and
// for its stats without the aiori.FileInfo: aiori/posix's Backend
// implements it. The runner creates and reads through it when the item
// needs nothing but open, write or read, close: not with -X,
// --verify-write, -y or -k. A backend implementing it promises that its
// item calls and its aiori.Metadata calls allocate nothing when they
// succeed, so that the timed loops cannot start a garbage collection, and
// that none of its calls keeps a path string once the operation is done
// (a File it returns may hold its path until closed; an error is read
// before the next path): the runner then passes it views of the one
// buffer it derives each path in (pathBuf), which the next path
// overwrites.
type itemIO interface {
	// CreateItem creates path write-only, writes data at offset 0 and
	// closes it.
	CreateItem(path string, data []byte) error
	// ReadItem opens path read-only, reads len(buf) bytes at offset 0
	// (io.EOF when the file is shorter) and closes it.
	ReadItem(path string, buf []byte) (int, error)
	// StatItem stats path and reports only whether that failed.
	StatItem(path string) error
}
