//go:build ucxcgo && cgo

package ucx

// The cgo binding of the calls into UCX (-tags ucxcgo, with cgo): the
// same function addresses (libucp is still loaded by dlopen, so the
// binary needs no UCX at build time), called through a C trampoline per
// argument count instead of purego. It exists to measure what purego
// costs per call on the latency path (see the README's UCX section); the
// default build does not use it.

/*
#include <stdint.h>
typedef uintptr_t u;
static u hb_call(u fn, int n, u *a) {
	switch (n) {
	case 0: return ((u (*)(void))fn)();
	case 1: return ((u (*)(u))fn)(a[0]);
	case 2: return ((u (*)(u, u))fn)(a[0], a[1]);
	case 3: return ((u (*)(u, u, u))fn)(a[0], a[1], a[2]);
	case 4: return ((u (*)(u, u, u, u))fn)(a[0], a[1], a[2], a[3]);
	case 5: return ((u (*)(u, u, u, u, u))fn)(a[0], a[1], a[2], a[3], a[4]);
	case 6: return ((u (*)(u, u, u, u, u, u))fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
	default: return ((u (*)(u, u, u, u, u, u, u, u))fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	}
}
*/
import "C"

import "unsafe"

// Binding is how this build calls into libucp: "purego" (the default,
// which CGO_ENABLED=0 builds) or "cgo" (-tags ucxcgo).
const Binding = "cgo"

// call calls the C function fn with args through the worker's argument
// array and returns its result register. Caller holds mu (or is the only
// user, while the worker is made).
func (wk *worker) call(fn uintptr, args ...uintptr) uintptr {
	n := copy(wk.s.args[:], args)
	return uintptr(C.hb_call(C.u(fn), C.int(n), (*C.u)(unsafe.Pointer(&wk.s.args[0]))))
}
