package fabtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/fabric/pipe"
)

// FuzzResponderPlan: whatever the other end sends as its plan, the
// responder refuses it with an answer and an error, or runs it, and never
// panics or allocates past the plan's sizes' bound.
func FuzzResponderPlan(f *testing.F) {
	good, _ := json.Marshal(planMsg{Options{Test: PingPong, Sizes: []int{8}, Iters: 2, Window: 1}})
	f.Add(good)
	f.Add([]byte(`{"test":"pingpong","sizes":[2147483647],"iters":1,"window":1}`))
	f.Add([]byte(`{"test":"bw","sizes":[-1],"window":0}`))
	f.Add([]byte(`{"test":"pingpong","sizes":[]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, plan []byte) {
		a, b := pipe.Pair()
		defer a.Close()
		defer b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, Peer{Link: ConnLink{Conn: b}, Name: "fuzzer"}, Options{Test: PingPong})
			done <- err
		}()
		if err := a.Send(ctx, 0, plan); err != nil {
			t.Fatal(err)
		}
		var p planMsg
		valid := json.Unmarshal(plan, &p) == nil && p.Validate() == nil && p.Test == PingPong
		if valid {
			return // a valid plan runs; the run itself is TestRun*'s
		}
		if len(plan) <= maxPlan && json.Valid(plan) {
			ans := make([]byte, maxPlan)
			n, err := a.Recv(ctx, 0, ans)
			if err != nil {
				t.Fatalf("no answer to a bad plan: %v", err)
			}
			var refusal string
			if json.Unmarshal(ans[:n], &refusal) != nil || refusal == "" {
				t.Fatalf("answer %q to a bad plan", ans[:n])
			}
		}
		cancel()
		if err := <-done; err == nil || !strings.Contains(err.Error(), "fuzzer") {
			t.Fatalf("responder: %v", err)
		}
	})
}
