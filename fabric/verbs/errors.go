package verbs

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// ErrNotBuilt means this binary was built without the cgo binding: the
// real devices cannot be opened. Test with errors.Is.
var ErrNotBuilt = errors.New("fabric/verbs: built without -tags verbs: rebuild with go build -tags verbs ./cmd/hpcbench (needs libibverbs-dev)")

// CallError is a failed verbs call: the call's name and the errno it set
// (or returned). Its text is "ibv_create_qp: Cannot allocate memory (errno
// 12)", the words strerror would print. errors.Is(err, unix.ENOMEM) works
// through it.
type CallError struct {
	Call  string
	Errno unix.Errno
}

// Errno returns the error of verbs call call failing with errno e.
func Errno(call string, e unix.Errno) error { return &CallError{Call: call, Errno: e} }

// Error implements error.
func (e *CallError) Error() string {
	return fmt.Sprintf("%s: %s (errno %d)", e.Call, strerror(e.Errno), int(e.Errno))
}

// Unwrap returns the errno.
func (e *CallError) Unwrap() error { return e.Errno }

// strerror is e's text with its first letter capitalized, as glibc's
// strerror words it ("Cannot allocate memory").
func strerror(e unix.Errno) string {
	s := e.Error()
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// WCError is a work completion with an error status: what the request was
// (Op, "RDMA write to rank 1"), its wr_id and the status. Its text is
// "RDMA write to rank 1: work completion failed: remote access error
// (status 10), wr_id 0x300000000000001" (a failed completion's opcode is
// undefined, so Op comes from the transport's own record). A failed completion moves the
// queue pair to ERR: the connection is unusable afterwards.
type WCError struct {
	Op     string
	WRID   uint64
	Status WCStatus
}

// Error implements error.
func (e *WCError) Error() string {
	return fmt.Sprintf("%s: work completion failed: %s (status %d), wr_id %#x",
		e.Op, e.Status, uint32(e.Status), e.WRID)
}

// ErrNoDevice means this host has no RDMA device the verbs library can
// open (or no RDMA support in its kernel). Test with errors.Is.
var ErrNoDevice = errors.New("no RDMA device: ibv_get_device_list found none (this host has no RDMA hardware or kernel support)")
