package ofi

// Strays. libfabric 1.17's shm provider now and then completes a receive
// with a message of another tag from the same peer (seen with three ranks
// connecting at once: a one-byte verdict for one Conn landing in a
// collective's receive on another). The message itself is whole, so the
// endpoint keeps it for the receive of its own tag and posts the receive
// that took it again. A stray longer than the buffer it fell into is lost;
// its own receive then reports that.

// stray is a message kept for the receive of its tag.
type stray struct {
	payload []byte // the bytes, copied out
	data    uint64 // its CQ data (a long message's header)
	lost    int    // the FI_E* code when it did not fit where it fell
}

// strayLocked keeps the message that completed slot i although it is not
// the slot's tag, and posts the slot's receive again. It reports false
// (the completion then stands as it is) when the receive cannot be posted
// again.
func (e *endpoint) strayLocked(i int32, code, n int, tag, data uint64) bool {
	o := &e.ops[i]
	s := stray{data: data, lost: code}
	if code == 0 {
		s.payload = append([]byte(nil), o.buf[:min(n, len(o.buf))]...)
	}
	e.strays[tag] = append(e.strays[tag], s)
	rc := call(e.fnRecv, e.ep, bufPtr(o.buf), uintptr(len(o.buf)), 0, uintptr(o.src), uintptr(o.want), 0, e.ctxPtr(i))
	return rc == 0
}

// takeStrayLocked takes the oldest stray of tag.
func (e *endpoint) takeStrayLocked(tag uint64) (stray, bool) {
	q := e.strays[tag]
	if len(q) == 0 {
		return stray{}, false
	}
	s := q[0]
	if len(q) == 1 {
		delete(e.strays, tag)
	} else {
		e.strays[tag] = q[1:]
	}
	return s, true
}

// pushStrayFrontLocked puts s back as the oldest stray of tag.
func (e *endpoint) pushStrayFrontLocked(tag uint64, s stray) {
	e.strays[tag] = append([]stray{s}, e.strays[tag]...)
}
