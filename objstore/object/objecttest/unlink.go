package objecttest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// testUnlink: object.Unlink (the container's own Unlink when it is an
// object.Unlinker) removes the entry and then punches the object it names,
// whatever holds the object's bytes (none, a small array, extents on
// every target), plainly or conditionally; a removal that fails leaves
// both the entry and the object as they were.
func testUnlink(e *env) {
	for _, size := range []int{0, 100, 3 * chunk} {
		for _, cond := range []bool{false, true} {
			name := fmt.Sprintf("%d bytes, conditional %v", size, cond)
			dir := e.oid(object.S1)
			victim := e.array(object.SX)
			inode := []byte("inode of " + name)
			e.put(dir, "f", "DFS_INODE", inode)
			e.put(dir, "keep", "DFS_INODE", inode)
			e.put(victim.OID, "attr", "a", []byte("x"))
			data := pattern(byte(size), 0, size)
			if size > 0 {
				e.write(victim, 0, data, 0)
			}
			var expect []byte
			if cond {
				expect = inode
				removed, err := object.Unlink(e.ctx, e.c, dir, "f", "DFS_INODE", []byte("another inode"), victim.OID)
				if removed || !errors.Is(err, object.ErrChanged) {
					e.t.Errorf("%s: Unlink expecting another value = %v, %v; want false, ErrChanged", name, removed, err)
				}
				e.wantWhole(name, dir, victim, inode, data)
			}
			removed, err := object.Unlink(e.ctx, e.c, dir, "f", "DFS_INODE", expect, victim.OID)
			if !removed || err != nil {
				e.t.Fatalf("%s: Unlink = %v, %v; want true, nil", name, removed, err)
			}
			_, err = e.c.Get(e.ctx, dir, "f", "DFS_INODE")
			e.wantNotExist(name+": Get of the unlinked entry", err)
			_, err = e.c.Get(e.ctx, victim.OID, "attr", "a")
			e.wantNotExist(name+": Get of the punched object's record", err)
			e.wantSize(victim, 0)
			if got := e.get(dir, "keep", "DFS_INODE"); !bytes.Equal(got, inode) {
				e.t.Errorf("%s: the other entry holds %q; want it untouched", name, got)
			}

			// Again: nothing to remove, so nothing is punched.
			e.put(victim.OID, "attr", "a", []byte("x"))
			if size > 0 {
				e.write(victim, 0, data, 0)
			}
			removed, err = object.Unlink(e.ctx, e.c, dir, "f", "DFS_INODE", expect, victim.OID)
			if removed || !errors.Is(err, object.ErrNotExist) {
				e.t.Errorf("%s: Unlink of a missing entry = %v, %v; want false, ErrNotExist", name, removed, err)
			}
			if got := e.get(victim.OID, "attr", "a"); string(got) != "x" {
				e.t.Errorf("%s: after a failed Unlink the object's record is %q; want it untouched", name, got)
			}
			e.wantSize(victim, int64(size))
		}
	}
}

// wantWhole fails the case unless entry "f" of dir holds inode and
// victim's array holds data.
func (e *env) wantWhole(name string, dir object.OID, victim object.Array, inode, data []byte) {
	e.t.Helper()
	if got := e.get(dir, "f", "DFS_INODE"); !bytes.Equal(got, inode) {
		e.t.Errorf("%s: after a failed Unlink the entry holds %q; want %q", name, got, inode)
	}
	e.wantSize(victim, int64(len(data)))
	if len(data) == 0 {
		return
	}
	if got := e.read(victim, 0, len(data), int64(len(data))); !bytes.Equal(got, data) {
		e.t.Errorf("%s: after a failed Unlink the array's bytes changed", name)
	}
}
