package memobj_test

import (
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/object/objecttest"
)

func TestConformance(t *testing.T) {
	objecttest.Run(t, func(t *testing.T, props object.ContProps) object.Container {
		c, err := memobj.New(props)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func TestNewRefusesBadProps(t *testing.T) {
	for _, p := range []object.ContProps{{ChunkSize: 1000}, {OClass: 3}, {DirOClass: 6}} {
		if _, err := memobj.New(p); err == nil {
			t.Errorf("New(%+v) succeeded; want an error", p)
		}
	}
}
