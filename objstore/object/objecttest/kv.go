package objecttest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"sync"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// get returns the value under (oid, dkey, akey) and fails the case on error.
func (e *env) get(oid object.OID, dkey, akey string) []byte {
	e.t.Helper()
	v, err := e.c.Get(e.ctx, oid, dkey, akey)
	if err != nil {
		e.t.Fatalf("Get(%v, %q, %q): %v", oid, dkey, akey, err)
	}
	return v
}

// put stores val and fails the case on error.
func (e *env) put(oid object.OID, dkey, akey string, val []byte) {
	e.t.Helper()
	if err := e.c.Put(e.ctx, oid, dkey, akey, val); err != nil {
		e.t.Fatalf("Put(%v, %q, %q): %v", oid, dkey, akey, err)
	}
}

// wantNotExist fails the case unless err says something does not exist,
// through both object.ErrNotExist and fs.ErrNotExist.
func (e *env) wantNotExist(what string, err error) {
	e.t.Helper()
	if !errors.Is(err, object.ErrNotExist) || !errors.Is(err, fs.ErrNotExist) || !object.IsNotExist(err) {
		e.t.Errorf("%s: error %v; want one wrapping object.ErrNotExist and fs.ErrNotExist", what, err)
	}
}

func testPutGet(e *env) {
	oid := e.oid(object.S1)
	for _, tc := range []struct {
		dkey, akey string
		val        []byte
	}{
		{"a", "DFS_INODE", []byte("inode of a")},
		{"a", "x:user.tag", []byte{0, 1, 2, 255}},
		{"b", "DFS_INODE", bytes.Repeat([]byte("b"), 100)},
		{"with/slash and space", "k", []byte("v")},
		{"large", "v", bytes.Repeat([]byte{7}, 1<<20)},
		{"empty", "v", nil},
	} {
		e.put(oid, tc.dkey, tc.akey, tc.val)
		if got := e.get(oid, tc.dkey, tc.akey); !bytes.Equal(got, tc.val) {
			e.t.Errorf("Get(%q, %q) = %d bytes; want the %d put", tc.dkey, tc.akey, len(got), len(tc.val))
		}
	}
	// A caller's buffer is the caller's: changing it after Put or after Get
	// changes nothing stored.
	val := []byte("original")
	e.put(oid, "own", "v", val)
	copy(val, "CHANGED!")
	got := e.get(oid, "own", "v")
	if string(got) != "original" {
		e.t.Errorf("Get after the caller changed Put's buffer = %q; want %q", got, "original")
	}
	copy(got, "CHANGED!")
	if again := e.get(oid, "own", "v"); string(again) != "original" {
		e.t.Errorf("Get after the caller changed Get's result = %q; want %q", again, "original")
	}
	// Objects do not share keys.
	other := e.oid(object.S1)
	_, err := e.c.Get(e.ctx, other, "a", "DFS_INODE")
	e.wantNotExist("Get of another object's dkey", err)
}

func testPutReplace(e *env) {
	oid := e.oid(object.S1)
	for i, v := range []string{"first", "second, longer than the first", "3"} {
		e.put(oid, "d", "a", []byte(v))
		if got := e.get(oid, "d", "a"); string(got) != v {
			e.t.Errorf("Get after Put number %d = %q; want %q", i+1, got, v)
		}
	}
	e.put(oid, "d", "b", []byte("other akey"))
	if got := e.get(oid, "d", "a"); string(got) != "3" {
		e.t.Errorf("Put of another akey changed akey a: %q", got)
	}
}

func testGetMissing(e *env) {
	oid := e.oid(object.S1)
	e.put(oid, "d", "a", []byte("v"))
	for _, tc := range []struct {
		name       string
		oid        object.OID
		dkey, akey string
	}{
		{"missing object", e.oid(object.S1), "d", "a"},
		{"missing dkey", oid, "nod", "a"},
		{"missing akey", oid, "d", "noa"},
	} {
		_, err := e.c.Get(e.ctx, tc.oid, tc.dkey, tc.akey)
		e.wantNotExist("Get of a "+tc.name, err)
	}
}

func testInsert(e *env) {
	oid := e.oid(object.S1)
	if err := e.c.Insert(e.ctx, oid, "f", "DFS_INODE", []byte("one")); err != nil {
		e.t.Fatalf("Insert of a new dkey: %v", err)
	}
	for _, akey := range []string{"DFS_INODE", "another akey"} {
		err := e.c.Insert(e.ctx, oid, "f", akey, []byte("two"))
		if !errors.Is(err, object.ErrExist) || !errors.Is(err, fs.ErrExist) {
			e.t.Errorf("Insert(%q, %q) on an existing dkey: error %v; want one wrapping object.ErrExist and fs.ErrExist", "f", akey, err)
		}
	}
	if got := e.get(oid, "f", "DFS_INODE"); string(got) != "one" {
		e.t.Errorf("a refused Insert changed the value: %q", got)
	}
	if _, err := e.c.Get(e.ctx, oid, "f", "another akey"); err == nil {
		e.t.Errorf("a refused Insert stored its akey")
	}
	// Once the dkey is removed, Insert takes it again.
	if err := e.c.Remove(e.ctx, oid, "f"); err != nil {
		e.t.Fatalf("Remove: %v", err)
	}
	if err := e.c.Insert(e.ctx, oid, "f", "DFS_INODE", []byte("three")); err != nil {
		e.t.Errorf("Insert after Remove: %v", err)
	}
	if got := e.get(oid, "f", "DFS_INODE"); string(got) != "three" {
		e.t.Errorf("Get after Insert after Remove = %q; want %q", got, "three")
	}
}

func testInsertConcurrent(e *env) {
	const racers, rounds = 8, 20
	oid := e.oid(object.S1)
	for r := range rounds {
		dkey := fmt.Sprintf("file%d", r)
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				errs[i] = e.c.Insert(e.ctx, oid, dkey, "DFS_INODE", []byte{byte(i)})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				e.t.Errorf("%s: racers %d and %d both inserted", dkey, winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, object.ErrExist):
				e.t.Errorf("%s: racer %d: error %v; want ErrExist", dkey, i, err)
			}
		}
		if winner < 0 {
			e.t.Errorf("%s: no racer inserted", dkey)
			continue
		}
		if got := e.get(oid, dkey, "DFS_INODE"); !bytes.Equal(got, []byte{byte(winner)}) {
			e.t.Errorf("%s: value %v; want the winner's %v", dkey, got, []byte{byte(winner)})
		}
	}
}

func testRemove(e *env) {
	oid := e.oid(object.S1)
	e.put(oid, "d", "a", []byte("1"))
	e.put(oid, "d", "b", []byte("2"))
	e.put(oid, "keep", "a", []byte("3"))
	if err := e.c.Remove(e.ctx, oid, "d"); err != nil {
		e.t.Fatalf("Remove of a dkey with two akeys: %v", err)
	}
	for _, akey := range []string{"a", "b"} {
		_, err := e.c.Get(e.ctx, oid, "d", akey)
		e.wantNotExist("Get of a removed dkey's akey "+akey, err)
	}
	if got := e.get(oid, "keep", "a"); string(got) != "3" {
		e.t.Errorf("Remove of d changed dkey keep: %q", got)
	}
	for _, tc := range e.missing(oid, "d") {
		e.wantNotExist("Remove of "+tc.name, e.c.Remove(e.ctx, tc.oid, tc.dkey))
	}
}

// missingDkey is a dkey that holds nothing, and why.
type missingDkey struct {
	name string
	oid  object.OID
	dkey string
}

// missing returns the dkeys a removal finds nothing at, given that dkey
// of oid was removed.
func (e *env) missing(oid object.OID, dkey string) []missingDkey {
	return []missingDkey{
		{"a dkey removed already", oid, dkey},
		{"a dkey never put", oid, "never"},
		{"an object never written", e.oid(object.S1), dkey},
	}
}

// testRemoveIf: RemoveIf removes the whole dkey only when the akey holds
// exactly the value expected; otherwise it removes nothing and says why.
func testRemoveIf(e *env) {
	oid := e.oid(object.S1)
	for _, tc := range []struct {
		name   string
		akey   string
		expect []byte
		want   error // nil: removed
	}{
		{"the value expected", "a", []byte("one"), nil},
		{"another value", "a", []byte("two"), object.ErrChanged},
		{"a prefix of the value", "a", []byte("on"), object.ErrChanged},
		{"the value and more", "a", []byte("one!"), object.ErrChanged},
		{"an empty expectation", "a", []byte{}, object.ErrChanged},
		{"an akey the dkey lacks", "z", []byte("one"), object.ErrNotExist},
	} {
		e.put(oid, "d", "a", []byte("one"))
		e.put(oid, "d", "b", []byte("other"))
		err := e.c.RemoveIf(e.ctx, oid, "d", tc.akey, tc.expect)
		if tc.want == nil {
			if err != nil {
				e.t.Fatalf("RemoveIf with %s: %v", tc.name, err)
			}
			for _, akey := range []string{"a", "b"} {
				_, err := e.c.Get(e.ctx, oid, "d", akey)
				e.wantNotExist("Get of akey "+akey+" after RemoveIf with "+tc.name, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			e.t.Errorf("RemoveIf with %s: %v; want %v", tc.name, err, tc.want)
		}
		if got := e.get(oid, "d", "b"); string(got) != "other" {
			e.t.Errorf("RemoveIf with %s changed the dkey: akey b holds %q", tc.name, got)
		}
	}
	e.put(oid, "empty", "a", []byte{})
	if err := e.c.RemoveIf(e.ctx, oid, "empty", "a", []byte{}); err != nil {
		e.t.Errorf("RemoveIf of an empty value expecting it: %v", err)
	}
	if err := e.c.Remove(e.ctx, oid, "d"); err != nil {
		e.t.Fatalf("Remove: %v", err)
	}
	for _, tc := range e.missing(oid, "d") {
		e.wantNotExist("RemoveIf of "+tc.name, e.c.RemoveIf(e.ctx, tc.oid, tc.dkey, "a", []byte("one")))
	}
}

// testRemoveIfConcurrent: of racers removing one entry with the value it
// holds, exactly one succeeds and the others find nothing: the check and
// the removal are one step.
func testRemoveIfConcurrent(e *env) {
	const racers, rounds = 8, 20
	oid := e.oid(object.S1)
	for r := range rounds {
		dkey := fmt.Sprintf("file%d", r)
		val := []byte(dkey)
		e.put(oid, dkey, "DFS_INODE", val)
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() { errs[i] = e.c.RemoveIf(e.ctx, oid, dkey, "DFS_INODE", val) })
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, object.ErrNotExist):
				e.t.Errorf("%s: racer %d: %v; want nil or ErrNotExist", dkey, i, err)
			}
		}
		if won != 1 {
			e.t.Errorf("%s: %d racers removed it; want exactly 1", dkey, won)
		}
	}
}

// listAll pages through oid's dkeys max at a time and returns them all.
func (e *env) listAll(oid object.OID, max int) []string {
	e.t.Helper()
	var all []string
	anchor := ""
	for pages := 0; ; pages++ {
		keys, next, err := e.c.List(e.ctx, oid, anchor, max)
		if err != nil {
			e.t.Fatalf("List(anchor %q, max %d): %v", anchor, max, err)
		}
		if max > 0 && len(keys) > max {
			e.t.Fatalf("List(max %d) returned %d dkeys", max, len(keys))
		}
		all = append(all, keys...)
		if next == "" {
			return all
		}
		if pages > 10000 {
			e.t.Fatalf("List does not end: %d pages", pages)
		}
		anchor = next
	}
}

func testList(e *env) {
	empty := e.oid(object.S1)
	keys, next, err := e.c.List(e.ctx, empty, "", 0)
	if err != nil || len(keys) != 0 || next != "" {
		e.t.Errorf("List of an object never written = %q, %q, %v; want nothing, \"\", nil", keys, next, err)
	}
	oid := e.oid(object.S1)
	want := []string{"a", "b", "c", "dir/x", "zz"}
	for _, k := range want {
		e.put(oid, k, "DFS_INODE", []byte(k))
		e.put(oid, k, "x:attr", []byte(k)) // two akeys: the dkey lists once
	}
	if err := e.c.Remove(e.ctx, oid, "b"); err != nil {
		e.t.Fatal(err)
	}
	want = []string{"a", "c", "dir/x", "zz"}
	for _, max := range []int{0, -1, 100} {
		got := e.listAll(oid, max)
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			e.t.Errorf("List(max %d) = %q; want %q", max, got, want)
		}
	}
}

func testListPages(e *env) {
	oid := e.oid(object.S1)
	const n = 257
	want := make(map[string]bool, n)
	for i := range n {
		k := fmt.Sprintf("entry-%03d", (i*37)%n) // not in sorted order
		want[k] = true
		e.put(oid, k, "DFS_INODE", []byte(k))
	}
	for _, max := range []int{1, 2, 10, 64, n - 1, n, n + 1} {
		seen := make(map[string]int, n)
		for _, k := range e.listAll(oid, max) {
			seen[k]++
		}
		for k := range want {
			if seen[k] != 1 {
				e.t.Errorf("List pages of %d: dkey %q listed %d times; want once", max, k, seen[k])
			}
		}
		for k := range seen {
			if !want[k] {
				e.t.Errorf("List pages of %d: dkey %q was never put", max, k)
			}
		}
	}
}
