//go:build !(verbs && linux && cgo)

package verbs

// OpenDevices opens every RDMA device of this host. This binary was built
// without the cgo binding (without -tags verbs, or without cgo, or not for
// Linux), so it returns ErrNotBuilt.
func OpenDevices() ([]Device, error) { return nil, ErrNotBuilt }
