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

	nextID uint32 // the next endpoint id (listeners and Conns); under mu
	events uint64 // counts progress calls that did something; under mu
	open   bool   // false once destroyed; under mu
}

// maxID is the largest endpoint id: ids take 31 bits of a tag (see tags).
const maxID = 1<<31 - 1

// newWorker reads UCX's configuration from the UCX_* environment, as every
// UCX program does, applies set over it (names without the UCX_ prefix:
// "TLS", "NET_DEVICES"), and creates the context (tag matching and RMA)
// and its worker.
func newWorker(l *lib, set [][2]string) (*worker, error) {
	var cfg uintptr
	if st := status(call(l.configRead, 0, 0, uintptr(unsafe.Pointer(&cfg)))); st != statusOK {
		return nil, l.err("ucp_config_read", st)
	}
	defer call(l.configRelease, cfg)
	for _, kv := range set {
		name, value := cString(kv[0]), cString(kv[1])
		if st := status(call(l.configModify, cfg, uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&value[0])))); st != statusOK {
			return nil, fmt.Errorf("UCX_%s=%s: %w", kv[0], kv[1], l.err("ucp_config_modify", st))
		}
	}
	p := &contextParams{fieldMask: paramFieldFeatures, features: featureTag | featureRMA}
	wk := &worker{l: l, nextID: 1, open: true}
	if st := status(call(l.initVersion, apiMajor, apiMinor, uintptr(unsafe.Pointer(p)), cfg, uintptr(unsafe.Pointer(&wk.ctx)))); st != statusOK {
		return nil, l.err("ucp_init", st)
	}
	wp := &workerParams{fieldMask: workerFieldThreadMode, threadMode: threadModeSerialized}
	if st := status(call(l.workerCreate, wk.ctx, uintptr(unsafe.Pointer(wp)), uintptr(unsafe.Pointer(&wk.w)))); st != statusOK {
		call(l.cleanup, wk.ctx)
		return nil, l.err("ucp_worker_create", st)
	}
	var a, n uintptr
	if st := status(call(l.workerGetAddress, wk.w, uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&n)))); st != statusOK {
		wk.destroy()
		return nil, l.err("ucp_worker_get_address", st)
	}
	wk.addr = cBytes(a, int(n))
	call(l.workerReleaseAddress, wk.w, a)
	runtime.KeepAlive(p)
	runtime.KeepAlive(wp)
	return wk, nil
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
func (wk *worker) progress() bool { return call(wk.l.workerProgress, wk.w) != 0 }

// destroy destroys the worker and the context. Caller holds mu, or is the
// only user.
func (wk *worker) destroy() {
	if !wk.open {
		return
	}
	wk.open = false
	call(wk.l.workerDestroy, wk.w)
	call(wk.l.cleanup, wk.ctx)
}

// requestDone checks a request (a non-NULL, non-error ucs_status_ptr_t)
// and frees it once it has completed, returning its status; it returns
// statusInProgress while it runs. Caller holds mu.
func (wk *worker) requestDone(req uintptr) int32 {
	st := status(call(wk.l.requestCheckStatus, req))
	if st != statusInProgress {
		call(wk.l.requestFree, req)
	}
	return st
}
