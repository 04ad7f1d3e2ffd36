package wireup

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestPhaseHook: the Phase hook hears each phase once it is done, in order.
func TestPhaseHook(t *testing.T) {
	var got []string
	o := Options{CardSize: 16, Pattern: PatternRing, Timeout: time.Minute, Getenv: noEnv,
		Phase: func(name string, iter int, done, total int64) {
			got = append(got, fmt.Sprintf("%s %d %d/%d", name, iter, done, total))
		}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := []string{"init 0 1/5", "put 0 2/5", "barrier 0 3/5", "get 0 4/5", "finalize 0 5/5"}
	if !slices.Equal(got, want) {
		t.Errorf("phases:\n got %q\nwant %q", got, want)
	}
}
