package ofi

import "unsafe"

// cqReader reads a completion queue opened with FI_CQ_FORMAT_TAGGED: the
// RDM endpoint's, or a MSG connection's. Its buffers are reused from poll
// to poll, under its owner's lock.
type cqReader struct {
	cq, fnRead, fnReadErr uintptr
	buf                   [pollBatch * cqEntrySize]byte
	errbuf                [cqErrSize]byte
	args                  argv
}

// completer takes a completion: the operation's context, the positive
// FI_E* code of an error (0 for success), the bytes received (or a
// truncated message's whole length), its tag and its CQ data.
type completer interface {
	completeLocked(ctx uintptr, code, n int, tag, data uint64)
}

// open points r at cq.
func (r *cqReader) open(cq uintptr) {
	r.cq = cq
	r.fnRead = method(cq, fidStructOps, cqOpsRead)
	r.fnReadErr = method(cq, fidStructOps, cqOpsReadErr)
}

// poll reads up to pollBatch completions, or an error completion when one
// is waiting, hands each to to, and returns how many it handled.
func (r *cqReader) poll(to completer) int {
	r.args[0], r.args[1], r.args[2] = r.cq, uintptr(unsafe.Pointer(&r.buf[0])), pollBatch
	n := r.args.call(r.fnRead, 3)
	if n > 0 {
		for i := range n {
			ent := r.buf[i*cqEntrySize:]
			ctx := *(*uintptr)(unsafe.Pointer(&ent[0]))
			length := *(*uint64)(unsafe.Pointer(&ent[16]))
			data := *(*uint64)(unsafe.Pointer(&ent[32]))
			tag := *(*uint64)(unsafe.Pointer(&ent[40]))
			to.completeLocked(ctx, 0, int(length), tag, data)
		}
		return n
	}
	if n != -errAvail {
		return 0
	}
	clear(r.errbuf[:])
	r.args[0], r.args[1], r.args[2] = r.cq, uintptr(unsafe.Pointer(&r.errbuf[0])), 0
	if r.args.call(r.fnReadErr, 3) != 1 {
		return 0
	}
	ctx := *(*uintptr)(unsafe.Pointer(&r.errbuf[0]))
	tag := *(*uint64)(unsafe.Pointer(&r.errbuf[40]))
	olen := *(*uint64)(unsafe.Pointer(&r.errbuf[cqErrOlen]))
	code := int(*(*int32)(unsafe.Pointer(&r.errbuf[cqErrErr])))
	code = max(code, -code) // shm reports some errors negated
	if code == 0 {
		code = errCanceled
	}
	to.completeLocked(ctx, code, int(olen), tag, 0)
	return 1
}
