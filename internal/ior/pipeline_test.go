package ior

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/ior/config"
)

// TestIdleInSomeTest: a rank -N leaves out of a test keeps no default stall
// deadline (it waits for the working ranks for as long as they take).
func TestIdleInSomeTest(t *testing.T) {
	for _, tc := range []struct {
		ntasks     []int
		rank, size int
		want       bool
	}{
		{[]int{-1}, 3, 4, false},
		{[]int{4}, 3, 4, false},
		{[]int{2}, 1, 4, false},
		{[]int{2}, 2, 4, true},
		{[]int{-1, 2}, 3, 4, true},
		{[]int{8}, 3, 4, false},
	} {
		var tests []config.Options
		for _, n := range tc.ntasks {
			tests = append(tests, config.Options{NumTasks: n})
		}
		if got := idleInSomeTest(tests, tc.rank, tc.size); got != tc.want {
			t.Errorf("-N %v, rank %d of %d: idle = %v, want %v", tc.ntasks, tc.rank, tc.size, got, tc.want)
		}
	}
}
