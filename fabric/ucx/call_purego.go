//go:build !(ucxcgo && cgo)

package ucx

import "github.com/ebitengine/purego"

// Binding is how this build calls into libucp: "purego" (the default,
// which CGO_ENABLED=0 builds) or "cgo" (-tags ucxcgo).
const Binding = "purego"

// call calls the C function fn with args through the worker's argument
// array and returns its result register. Caller holds mu (or is the only
// user, while the worker is made).
func (wk *worker) call(fn uintptr, args ...uintptr) uintptr {
	n := copy(wk.s.args[:], args)
	r, _, _ := purego.SyscallN(fn, wk.s.args[:n]...)
	return r
}
