package ucx

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// worker is one UCP context and its one worker: every Listener and Conn of
// a Transport shares it, as an MPI process shares its UCX worker among its
// peers. UCX is driven by one goroutine at a time: mu serialises every
// call into the library (the worker is created UCS_THREAD_MODE_SERIALIZED,
// because goroutines move between threads), and the goroutine that waits
// drives progress for everyone.
type worker struct {
	l    *lib
	mu   sync.Mutex
	ctx  uintptr // ucp_context_h
	w    uintptr // ucp_worker_h
	addr []byte  // the worker's address, copied out of UCX
	// reqSize is UCX's request size: a request this package provides
	// (UCP_OP_ATTR_FIELD_REQUEST) has that many bytes before its handle.
	reqSize uintptr
	// lost keeps alive memory that UCX may still use after this package
	// gave up waiting for it (see waitReqLeave); under mu.
	lost []any

	s      *scratch // memory the calls into UCX point to; under mu
	nextID uint32   // the next endpoint id (listeners and Conns); under mu
	// singleP: GOMAXPROCS was 1 when the worker was made (a rank on one
	// thread of computation); its waits then Gosched now and then.
	singleP bool
	events  uint64 // counts progress calls that did something; under mu
	open    bool   // false once destroyed; under mu
}

// scratch is the worker's memory for what its calls into UCX point to:
// their parameter structs and out-arguments, and the argument array of
// purego.SyscallN. It lives on the heap (a Go variable whose address is
// taken only as a uintptr may live on a goroutine stack, which moves when
// it grows, between taking the address and the call), and reusing it
// spares an allocation per call.
type scratch struct {
	args [8]uintptr
	out  [4]uintptr
	ctxP contextParams
	wkP  workerParams
	epP  epParams
	memP memMapParams
	reqP requestParam
	attr contextAttr
}

// outPtr is the address of the worker's out-argument i.
func (wk *worker) outPtr(i int) uintptr { return uintptr(unsafe.Pointer(&wk.s.out[i])) }

// maxID is the largest endpoint id: ids take 31 bits of a tag (see tags).
const maxID = 1<<31 - 1

// newWorker reads UCX's configuration from the UCX_* environment, as every
// UCX program does, applies set over it (names without the UCX_ prefix:
// "TLS", "NET_DEVICES"), and creates the context (tag matching and RMA)
// and its worker.
func newWorker(l *lib, set [][2]string) (*worker, error) {
	wk := &worker{l: l, s: new(scratch), nextID: 1, singleP: runtime.GOMAXPROCS(0) == 1}
	if st := status(wk.call(l.configRead, 0, 0, wk.outPtr(0))); st != statusOK {
		return nil, l.err("ucp_config_read", st)
	}
	cfg := wk.s.out[0]
	defer wk.call(l.configRelease, cfg)
	for _, kv := range set {
		name, value := cString(kv[0]), cString(kv[1])
		if st := status(wk.call(l.configModify, cfg, ptr(name), ptr(value))); st != statusOK {
			return nil, fmt.Errorf("UCX_%s=%s: %w", kv[0], kv[1], l.err("ucp_config_modify", st))
		}
		runtime.KeepAlive(name)
		runtime.KeepAlive(value)
	}
	wk.s.ctxP = contextParams{fieldMask: paramFieldFeatures, features: featureTag | featureRMA}
	if st := status(wk.call(l.initVersion, apiMajor, apiMinor, uintptr(unsafe.Pointer(&wk.s.ctxP)), cfg, wk.outPtr(0))); st != statusOK {
		return nil, l.err("ucp_init", st)
	}
	wk.ctx = wk.s.out[0]
	wk.s.attr = contextAttr{fieldMask: attrFieldRequestSize}
	if st := status(wk.call(l.contextQuery, wk.ctx, uintptr(unsafe.Pointer(&wk.s.attr)))); st != statusOK {
		wk.call(l.cleanup, wk.ctx)
		return nil, l.err("ucp_context_query", st)
	}
	wk.reqSize = uintptr(wk.s.attr.requestSize+7) &^ 7
	wk.s.wkP = workerParams{fieldMask: workerFieldThreadMode, threadMode: threadModeSerialized}
	if st := status(wk.call(l.workerCreate, wk.ctx, uintptr(unsafe.Pointer(&wk.s.wkP)), wk.outPtr(0))); st != statusOK {
		wk.call(l.cleanup, wk.ctx)
		return nil, l.err("ucp_worker_create", st)
	}
	wk.w, wk.open = wk.s.out[0], true
	if st := status(wk.call(l.workerGetAddress, wk.w, wk.outPtr(0), wk.outPtr(1))); st != statusOK {
		wk.destroy()
		return nil, l.err("ucp_worker_get_address", st)
	}
	a, n := wk.s.out[0], wk.s.out[1]
	wk.addr = cBytes(a, int(n))
	wk.call(l.workerReleaseAddress, wk.w, a)
	return wk, nil
}

// request is memory for one UCX request that this package provides, so
// that a Send or a Recv has no request to free (one call into UCX fewer a
// message): UCX's part, then room for the handle. It is Go memory, which
// does not move; the Conn that owns it keeps it alive while UCX uses it.
type request struct {
	mem    []uint64
	handle uintptr // what param.request and the calls take
}

// newRequest allocates a request's memory.
func (wk *worker) newRequest() *request {
	r := &request{mem: make([]uint64, wk.reqSize/8+2)}
	r.handle = uintptr(unsafe.Pointer(&r.mem[0])) + wk.reqSize
	return r
}

// newID returns an endpoint id no other listener or Conn of the worker
// has had. Caller holds mu.
func (wk *worker) newID() (uint32, error) {
	if wk.nextID > maxID {
		return 0, fmt.Errorf("ucx: this worker has used all %d endpoint ids", maxID)
	}
	id := wk.nextID
	wk.nextID++
	return id, nil
}

// progress runs the worker once and reports whether anything happened.
// Caller holds mu.
func (wk *worker) progress() bool { return wk.call(wk.l.workerProgress, wk.w) != 0 }

// destroy destroys the worker and the context. Caller holds mu, or is the
// only user.
func (wk *worker) destroy() {
	if !wk.open {
		return
	}
	wk.open = false
	wk.call(wk.l.workerDestroy, wk.w)
	wk.call(wk.l.cleanup, wk.ctx)
}

// requestDone checks a request (a non-NULL, non-error ucs_status_ptr_t)
// and frees it once it has completed, returning its status; it returns
// statusInProgress while it runs. Caller holds mu.
func (wk *worker) requestDone(req uintptr) int32 {
	st := status(wk.call(wk.l.requestCheckStatus, req))
	if st != statusInProgress {
		wk.call(wk.l.requestFree, req)
	}
	return st
}
