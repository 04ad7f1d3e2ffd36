package ucx

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hpcbench/hpcbench/internal/dlib"
)

// Library names tried in order: the soname UCX 1.x ships (Debian's
// libucx0), then the development link (libucx-dev). LD_LIBRARY_PATH
// applies, so a site's own UCX build is found the way its MPI finds it.
var libraryNames = []string{"libucp.so.0", "libucp.so"}

// ErrNoLibrary means UCX's libucp could not be loaded; the error wrapping
// it names the files tried and the Debian package.
var ErrNoLibrary = errors.New("UCX's libucp is not installed")

// lib is libucp, loaded, and the C library functions the info listing
// uses. Each field is a function's address, called through
// purego.SyscallN: no reflection on the hot path (see the README's UCX
// section for the per-call cost that chose this).
type lib struct {
	path string

	configRead, configModify, configRelease                  uintptr
	initVersion, cleanup, contextPrintInfo, getVersionString uintptr
	workerCreate, workerDestroy, workerProgress              uintptr
	workerGetAddress, workerReleaseAddress                   uintptr
	epCreate, epCloseNbx                                     uintptr
	tagSendNbx, tagRecvNbx, tagProbeNb, tagMsgRecvNbx        uintptr
	tagRecvRequestTest, requestCheckStatus, requestCancel    uintptr
	requestFree, contextQuery                                uintptr
	memMap, memUnmap, rkeyPack, rkeyBufferRelease            uintptr
	epRkeyUnpack, rkeyDestroy, putNbx, getNbx, epFlushNbx    uintptr
	statusString                                             uintptr
	openMemstream, fclose, free                              uintptr
}

// openLib loads libucp and binds every function the transport calls,
// failing with one line that names the library and the Debian package.
func openLib() (*lib, error) {
	h, path, err := dlib.Open(libraryNames)
	if err != nil {
		return nil, fmt.Errorf("%w (%v; Debian: apt-get install libucx0)", ErrNoLibrary, err)
	}
	l := &lib{path: path}
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("load the C library: %w", err)
	}
	var firstErr error
	bind := func(p *uintptr, h uintptr, name string) {
		if firstErr != nil {
			return
		}
		if *p, firstErr = purego.Dlsym(h, name); firstErr != nil {
			firstErr = fmt.Errorf("%s has no %s: %w", l.path, name, firstErr)
		}
	}
	for _, s := range []struct {
		p    *uintptr
		name string
	}{
		{&l.configRead, "ucp_config_read"}, {&l.configModify, "ucp_config_modify"}, {&l.configRelease, "ucp_config_release"},
		{&l.initVersion, "ucp_init_version"}, {&l.cleanup, "ucp_cleanup"}, {&l.contextPrintInfo, "ucp_context_print_info"},
		{&l.getVersionString, "ucp_get_version_string"}, {&l.contextQuery, "ucp_context_query"},
		{&l.workerCreate, "ucp_worker_create"}, {&l.workerDestroy, "ucp_worker_destroy"}, {&l.workerProgress, "ucp_worker_progress"},
		{&l.workerGetAddress, "ucp_worker_get_address"}, {&l.workerReleaseAddress, "ucp_worker_release_address"},
		{&l.epCreate, "ucp_ep_create"}, {&l.epCloseNbx, "ucp_ep_close_nbx"},
		{&l.tagSendNbx, "ucp_tag_send_nbx"}, {&l.tagRecvNbx, "ucp_tag_recv_nbx"}, {&l.tagProbeNb, "ucp_tag_probe_nb"},
		{&l.tagMsgRecvNbx, "ucp_tag_msg_recv_nbx"}, {&l.tagRecvRequestTest, "ucp_tag_recv_request_test"},
		{&l.requestCheckStatus, "ucp_request_check_status"}, {&l.requestCancel, "ucp_request_cancel"}, {&l.requestFree, "ucp_request_free"},
		{&l.memMap, "ucp_mem_map"}, {&l.memUnmap, "ucp_mem_unmap"}, {&l.rkeyPack, "ucp_rkey_pack"},
		{&l.rkeyBufferRelease, "ucp_rkey_buffer_release"}, {&l.epRkeyUnpack, "ucp_ep_rkey_unpack"}, {&l.rkeyDestroy, "ucp_rkey_destroy"},
		{&l.putNbx, "ucp_put_nbx"}, {&l.getNbx, "ucp_get_nbx"}, {&l.epFlushNbx, "ucp_ep_flush_nbx"},
		{&l.statusString, "ucs_status_string"},
	} {
		bind(s.p, h, s.name)
	}
	bind(&l.openMemstream, libc, "open_memstream")
	bind(&l.fclose, libc, "fclose")
	bind(&l.free, libc, "free")
	if firstErr != nil {
		return nil, firstErr
	}
	return l, nil
}

// call calls the C function fn with args, none of them a pointer, and
// returns its result register; calls with pointers go through a worker's
// scratch memory (worker.call).
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// status is a ucs_status_t result: a packed enum, one signed byte (only
// the low byte of the result register is defined), or a status pointer.
func status(r uintptr) int32 { return int32(int8(r)) }

// isErrPtr reports whether a ucs_status_ptr_t is an error (UCS_PTR_IS_ERR:
// the pointer is a negative status).
func isErrPtr(p uintptr) bool { return p >= uintptr(1<<64+statusErrLast) && p != 0 }

// goString copies a NUL-terminated C string.
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(cPointer(p + i))
		if c == 0 {
			return string(b)
		}
		b = append(b, c)
	}
}

// cPointer is the C memory at address p (outside Go's heap: malloc'd or
// mapped by UCX) as a pointer.
func cPointer(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

// cBytes is the n bytes of C memory at p, copied.
func cBytes(p uintptr, n int) []byte {
	if n == 0 {
		return []byte{}
	}
	return append([]byte(nil), unsafe.Slice((*byte)(cPointer(p)), n)...)
}

// cString is s NUL-terminated, for a C call, on the heap (it is not
// inlined: see scratch).
//
//go:noinline
func cString(s string) []byte { return append([]byte(s), 0) }

// statusText is UCX's own name for st ("Destination is unreachable").
func (l *lib) statusText(st int32) string {
	return goString(call(l.statusString, uintptr(st)))
}

// Error is a UCX call that returned a status other than success.
type Error struct {
	Op     string // the call: "ucp_ep_create"
	Status int32  // ucs_status_t
	Text   string // ucs_status_string's name for it
}

func (e *Error) Error() string {
	return fmt.Sprintf("ucx: %s: %s (status %d)", e.Op, e.Text, e.Status)
}

// err makes st, returned by op, an *Error.
func (l *lib) err(op string, st int32) error {
	return &Error{Op: op, Status: st, Text: l.statusText(st)}
}
