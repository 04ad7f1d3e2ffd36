package imb

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestPhaseHook: every rank tells the Phase hook each message size of each
// table as it starts, then the table's end, in order.
func TestPhaseHook(t *testing.T) {
	const ranks = 2
	w := newFakeWorld(ranks)
	o := fixedOptions(ranks, "PingPong", "Allreduce", "Barrier")
	var mu sync.Mutex
	var got []string
	o.Env.Phase = func(name string, iter int, done, total int64) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
		mu.Unlock()
	}
	res := okJob(t, w, o, false)
	var want []string
	for _, tb := range res.Tables {
		n := len(tb.Rows)
		for i := range n {
			for range ranks {
				want = append(want, fmt.Sprintf("%s %d %d/%d", tb.Name, i, i, n))
			}
		}
		for range ranks {
			want = append(want, fmt.Sprintf("%s %d %d/%d", tb.Name, n-1, n, n))
		}
	}
	if len(res.Tables) != 3 {
		t.Fatalf("%d tables, want 3", len(res.Tables))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("phases:\n got %q\nwant %q", got, want)
	}
}
