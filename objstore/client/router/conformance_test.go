package router_test

import (
	"fmt"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object"
	"github.com/hpcbench/hpcbench/objstore/object/objecttest"
)

// TestConformance runs the object API's suite over routers of one, two
// and three engines, of one target each and of several.
func TestConformance(t *testing.T) {
	for _, targets := range [][]int{{1}, {1, 1}, {1, 1, 1}, {3, 2}, {2, 1, 4}} {
		t.Run(fmt.Sprintf("targets=%v", targets), func(t *testing.T) {
			objecttest.Run(t, func(t *testing.T, props object.ContProps) object.Container {
				_, _, c := newCont(t, props, targets...)
				return c
			})
		})
	}
}
