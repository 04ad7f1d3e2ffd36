package pmix

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// Library names tried in order: the soname OpenPMIx 3 to 6 ship (Debian's
// libpmix2), then the development link (libpmix-dev). LD_LIBRARY_PATH
// applies, as it does for Slurm's own dlopen of the library.
var libraryNames = []string{"libpmix.so.2", "libpmix.so"}

// ErrNotBuilt is Open's error in a binary built with -tags nopmix.
var ErrNotBuilt = errors.New("this hpcbench was built with -tags nopmix: it speaks no PMIx (rebuild without the tag)")

// Lib is OpenPMIx's client library, loaded. Its functions are those of
// pmix.h, called through purego: status results are pmix_status_t.
type Lib struct {
	path    string
	version string

	initialize func(proc unsafe.Pointer, info unsafe.Pointer, ninfo uint64) int32
	get        func(proc unsafe.Pointer, key string, info unsafe.Pointer, ninfo uint64, val *unsafe.Pointer) int32
	put        func(scope uint8, key string, val unsafe.Pointer) int32
	commit     func() int32
	fence      func(procs unsafe.Pointer, nprocs uint64, info unsafe.Pointer, ninfo uint64) int32
	abort      func(status int32, msg string, procs unsafe.Pointer, nprocs uint64) int32
	finalize   func(info unsafe.Pointer, ninfo uint64) int32
	valueLoad  func(val unsafe.Pointer, data unsafe.Pointer, typ uint16) int32
	infoLoad   func(info unsafe.Pointer, key string, data unsafe.Pointer, typ uint16) int32
	valueFree  func(val unsafe.Pointer)
	errString  func(status int32) string
	getVersion func() string
	free       func(p unsafe.Pointer)
}

// Path returns the library file that was loaded, as dlopen was given it.
func (l *Lib) Path() string { return l.path }

// Version returns the library's own version string, as PMIx_Get_version
// gives it ("OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, …)").
func (l *Lib) Version() string { return l.version }

// checkVersion refuses a library older than OpenPMIx 3, whose structures
// this client does not lay out.
func checkVersion(v string) error {
	rest, ok := strings.CutPrefix(v, "OpenPMIx ")
	if !ok || len(rest) == 0 || rest[0] < '3' || rest[0] > '9' || (len(rest) > 1 && rest[1] != '.') {
		return fmt.Errorf("library version %q: want OpenPMIx 3 or later", v)
	}
	return nil
}

// statusError is a PMIx status as an error, with the library's own name
// for it.
func (l *Lib) statusError(op string, st int32) error {
	return &Error{Op: op, Status: int(st), Text: l.errString(st)}
}

// Error is a call that returned a PMIx status other than success.
type Error struct {
	Op     string // the call: "PMIx_Fence"
	Status int    // pmix_status_t
	Text   string // PMIx_Error_string's name for it
}

func (e *Error) Error() string {
	return fmt.Sprintf("pmix: %s: %s (status %d)", e.Op, e.Text, e.Status)
}

// NotFound reports whether a key was not found (PMIX_ERR_NOT_FOUND).
func (e *Error) NotFound() bool { return e.Status == statusNotFound }
