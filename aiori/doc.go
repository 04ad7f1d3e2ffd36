// Package aiori is hpcbench's abstract I/O interface, after IOR's aiori: the
// Backend that the ior and mdtest engines drive, the optional capabilities a
// backend may add (metadata operations for mdtest, a global sync, file-system
// capacity, access hints), an explicit ordered Registry that selects a backend
// by case-insensitive name, and namespaced backend options ("--posix.odirect")
// that a backend validates itself.
//
// A backend is a constructor plus an options value:
//
//	Entry{
//		Name:       "POSIX",
//		NewOptions: func() Options { return &posix.Options{} },
//		New:        posix.New,
//	}
//
// The engines never import a backend package; the command assembles the
// Registry (cmd/hpcbench) and hands it down. Backends live in sub-packages
// (aiori/posix, aiori/mmap, aiori/dummy) and every one passes the
// conformance suite in aiori/aioritest.
//
// Nothing benchmark-specific lives here: no timing, no data patterns, no
// output.
package aiori
