package mdtest

import (
	"testing"

	"github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// TestRank0Works: the mdtest runs in which the ranks other than 0 wait
// while rank 0 alone works, and so keep no default stall deadline.
func TestRank0Works(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    config.Options
		want bool
	}{
		{"-u", config.Options{UniqueDir: true}, false},
		{"shared tree", config.Options{}, true},
		{"-u -c", config.Options{UniqueDir: true, Collective: true}, true},
		{"-u before-phase hook", config.Options{UniqueDir: true, RunCmdBeforePhase: "sync"}, true},
		{"-u after-phase hook", config.Options{UniqueDir: true, RunCmdAfterPhase: "sync"}, true},
	} {
		if got := rank0Works(&tc.o); got != tc.want {
			t.Errorf("%s: rank0Works = %v, want %v", tc.name, got, tc.want)
		}
	}
}
