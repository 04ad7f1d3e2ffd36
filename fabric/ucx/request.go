package ucx

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/hpcbench/hpcbench/fabric"
)

// abortGrace is how long an aborted send may take to complete.
const abortGrace = 200 * time.Millisecond

// waitReq drives the worker's progress until req (a UCX request: not NULL,
// not an error) completes, frees it, and returns its status. With info it
// tests it as a tag receive, which also gives the message's length.
//
// At every look (see waiter.idle) it calls stop; the first time stop
// returns an error, abort is called with req (cancel a receive; break a
// send's endpoint, which completes its requests) and the wait goes on
// until UCX completes the request, because until then UCX may still use
// its buffer; the error is returned with the status. stop and abort run
// with wk.mu held; waitReq takes it for each poll and lets go between
// polls, so that other goroutines can call into the worker. It returns
// with wk.mu held: the caller lets go of it.
//
// A send (info nil) that UCX has not completed abortGrace after its
// abort is given up: waitReq returns statusCanceled and leaves the
// request to UCX (a rendezvous UCX 1.13 does not purge when its endpoint
// is closed). UCX then holds the sender's buffer still, and may still
// read it for a peer that asks; the connection is closed by then, so
// nothing is delivered on it. A receive is always waited for, because
// UCX would write into its buffer.
func (wk *worker) waitReq(req uintptr, info *tagRecvInfo, stop func(w *waiter) error, abort func(req uintptr, why error)) (int32, error) {
	return wk.waitReqLeave(req, nil, info, info == nil, stop, abort)
}

// statusGivenUp is waitReqLeave's status for a request it gave up on.
const statusGivenUp = -127

// waitReqLeave is waitReq, giving up an aborted request after abortGrace
// only when leave is true (a request that only reads its buffer). When
// own is not nil, req is that request of this package's (see request):
// it is not freed, and a request given up on is kept in wk.lost, its
// status statusGivenUp, for the caller to take a new one.
func (wk *worker) waitReqLeave(req uintptr, own *request, info *tagRecvInfo, leave bool, stop func(w *waiter) error, abort func(req uintptr, why error)) (int32, error) {
	w := newWaiter(wk.singleP)
	return wk.waitWith(&w, req, own, info, leave, stop, abort)
}

// waitAccept is waitReq for a listener's hello, which may not come for
// minutes: it naps from the start (see waiter.patient), so that a rank's
// accepting goroutine does not compete with its messages for the CPU.
func (wk *worker) waitAccept(req uintptr, info *tagRecvInfo, stop func(w *waiter) error) (int32, error) {
	w := newWaiter(wk.singleP)
	w.patient = true
	return wk.waitWith(&w, req, nil, info, false, stop, wk.cancel)
}

// waitWith is waitReqLeave with the waiter w.
func (wk *worker) waitWith(w *waiter, req uintptr, own *request, info *tagRecvInfo, leave bool, stop func(w *waiter) error, abort func(req uintptr, why error)) (int32, error) {
	var stopped error
	var abortedAt time.Time
	seen := ^uint64(0)
	for {
		wk.mu.Lock()
		if !wk.open { // Transport.Close destroyed the worker and req with it
			return statusCanceled, fmt.Errorf("ucx: transport closed: %w", fabric.ErrClosed)
		}
		if wk.progress() {
			wk.events++
			// Traffic (a peer's put that UCX carries out in this
			// progress, say) makes the wait young again: back to
			// spinning, not napping, while it flows.
			w.busy()
		}
		look := false
		if wk.events != seen {
			seen = wk.events
			look = true
		}
		tick := w.poll()
		if look || tick {
			var st int32
			if info != nil {
				st = status(wk.call(wk.l.tagRecvRequestTest, req, uintptr(unsafe.Pointer(info))))
			} else {
				st = status(wk.call(wk.l.requestCheckStatus, req))
			}
			if st != statusInProgress {
				if own == nil {
					wk.call(wk.l.requestFree, req)
				}
				return st, stopped
			}
		}
		if tick && stopped == nil && stop != nil {
			if stopped = stop(w); stopped != nil {
				abort(req, stopped)
				abortedAt = time.Now()
			}
		}
		if tick && stopped != nil && leave && time.Since(abortedAt) > abortGrace {
			if own != nil {
				wk.lost = append(wk.lost, own.mem)
				return statusGivenUp, stopped
			}
			return statusCanceled, stopped
		}
		wk.mu.Unlock()
		if tick {
			w.pause()
		}
	}
}

// cancel is the abort of a receive: UCX completes it with UCS_ERR_CANCELED
// unless a message has already matched it. Caller holds mu.
func (wk *worker) cancel(req uintptr, _ error) { wk.call(wk.l.requestCancel, wk.w, req) }

// ptr is the address of b's first byte for a C call, 0 for an empty b. b
// must stay reachable (and so in place: Go's heap does not move) until
// UCX is done with it.
func ptr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}
