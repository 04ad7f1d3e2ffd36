//go:build nopmix

package pmix

// Built reports whether this build can load the library at all (false
// with -tags nopmix).
const Built = false

// Open fails with ErrNotBuilt: this build loads no library.
func Open() (*Lib, error) { return nil, ErrNotBuilt }
