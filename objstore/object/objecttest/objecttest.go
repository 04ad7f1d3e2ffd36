package objecttest

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
)

// NewContainer makes a new, empty container with props for one case.
// Zero fields of props take object.DefaultProps, as Pool.CreateCont's do.
type NewContainer func(t *testing.T, props object.ContProps) object.Container

// Run runs the conformance cases as subtests of t.
func Run(t *testing.T, newContainer NewContainer) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props := c.props
			co := newContainer(t, props)
			if co == nil {
				t.Fatal("newContainer returned a nil Container")
			}
			t.Cleanup(func() {
				if err := co.Close(); err != nil {
					t.Errorf("Container.Close: %v", err)
				}
			})
			c.fn(&env{t: t, c: co, ctx: context.Background()})
		})
	}
}

// A testCase is one subtest of Run: the properties of its container and
// what it checks.
type testCase struct {
	name  string
	props object.ContProps
	fn    func(e *env)
}

// smallChunks are the properties of the array cases: chunks of 4 KiB (the
// smallest the store takes), so writes cross chunk boundaries cheaply.
var smallChunks = object.ContProps{ChunkSize: chunk}

// chunk is the chunk size of the array cases.
const chunk = 4096

var cases = []testCase{
	{"Props", object.ContProps{}, testProps},
	{"PropsGiven", object.ContProps{ChunkSize: 8192, OClass: object.S2, DirOClass: object.S4}, testPropsGiven},
	{"PutGet", object.ContProps{}, testPutGet},
	{"PutReplace", object.ContProps{}, testPutReplace},
	{"GetMissing", object.ContProps{}, testGetMissing},
	{"Insert", object.ContProps{}, testInsert},
	{"InsertConcurrent", object.ContProps{}, testInsertConcurrent},
	{"Remove", object.ContProps{}, testRemove},
	{"RemoveIf", object.ContProps{}, testRemoveIf},
	{"RemoveIfConcurrent", object.ContProps{}, testRemoveIfConcurrent},
	{"List", object.ContProps{}, testList},
	{"ListPages", object.ContProps{}, testListPages},
	{"ArrayChunks", smallChunks, testArrayChunks},
	{"ArrayHoles", smallChunks, testArrayHoles},
	{"ArrayEOF", smallChunks, testArrayEOF},
	{"ArraySize", smallChunks, testArraySize},
	{"SetSize", smallChunks, testSetSize},
	{"ArrayInvalid", smallChunks, testArrayInvalid},
	{"SyncArray", smallChunks, testSyncArray},
	{"Punch", smallChunks, testPunch},
	{"Unlink", smallChunks, testUnlink},
	{"AllocOIDs", object.ContProps{}, testAllocOIDs},
	{"AllocOIDsConcurrent", object.ContProps{}, testAllocOIDsConcurrent},
	{"Concurrent", smallChunks, testConcurrent},
	{"Canceled", smallChunks, testCanceled},
}

// env is what a case gets: its container and a context.
type env struct {
	t   *testing.T
	c   object.Container
	ctx context.Context
}

// oid returns a new object id of class c from the container.
func (e *env) oid(c object.Class) object.OID {
	e.t.Helper()
	o, err := e.c.AllocOIDs(e.ctx, c, 1)
	if err != nil {
		e.t.Fatalf("AllocOIDs(%v, 1): %v", c, err)
	}
	return o
}

// array returns a new array object of class c cut into the case's chunks.
func (e *env) array(c object.Class) object.Array {
	return object.Array{OID: e.oid(c), ChunkSize: e.c.Props().ChunkSize}
}

func testProps(e *env) {
	if got, want := e.c.Props(), object.DefaultProps(); got != want {
		e.t.Errorf("Props() = %+v for zero props; want the defaults %+v", got, want)
	}
}

func testPropsGiven(e *env) {
	want := object.ContProps{ChunkSize: 8192, OClass: object.S2, DirOClass: object.S4}
	if got := e.c.Props(); got != want {
		e.t.Errorf("Props() = %+v; want %+v", got, want)
	}
}
