package ior

import (
	"context"
	"strings"
	"testing"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/pattern"
)

// soloComm is a one-rank Comm whose Barrier calls hook first.
type soloComm struct{ hook func() }

func (c *soloComm) Rank() int { return 0 }
func (c *soloComm) Size() int { return 1 }
func (c *soloComm) Barrier(context.Context) error {
	c.hook()
	return nil
}
func (c *soloComm) Bcast(context.Context, []byte, int) error { return nil }
func (c *soloComm) Allreduce(_ context.Context, send, recv []byte, _ collectives.Datatype, _ collectives.Op) error {
	copy(recv, send)
	return nil
}
func (c *soloComm) Gather(_ context.Context, send, recv []byte, _ int) error {
	copy(recv, send)
	return nil
}

// createLog is a backend that notes each Create in a shared event log.
type createLog struct {
	aiori.Backend
	log *[]string
}

func (b createLog) Create(path string, flags aiori.OpenFlags) (aiori.File, error) {
	*b.log = append(*b.log, "create")
	return b.Backend.Create(path, flags)
}

// TestWriteBufferFilledBeforeBarrier checks that the write phase fills its
// buffer before the barrier that precedes the open, as IOR does, so that
// the timed window (open to close) holds only the transfers: at that
// barrier the buffer already verifies as the repetition's pattern.
func TestWriteBufferFilledBeforeBarrier(t *testing.T) {
	for _, l := range []string{"timestamp", "offset", "incompressible", "random"} {
		t.Run(l, func(t *testing.T) {
			args := "-a POSIX -w -r -b 64k -t 16k -i 2 -l " + l + " -o " + t.TempDir() + "/f"
			cfg, err := config.Parse(strings.Fields(args), testRegistry(t))
			if err != nil {
				t.Fatal(err)
			}
			var log []string
			var tt *tester
			c := &soloComm{}
			c.hook = func() {
				if tt == nil || tt.be == nil {
					log = append(log, "barrier")
					return
				}
				bad, _ := pattern.Verify(tt.buf, tt.ptype, 0, tt.sig, 0)
				if bad == 0 {
					log = append(log, "barrier filled")
				} else {
					log = append(log, "barrier")
				}
			}
			o := cfg.Tests[0]
			tt, err = newTester(t.Context(), c, &o, Env{}.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			tt.be = createLog{Backend: tt.be, log: &log}
			if _, err := tt.run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := tt.close(); err != nil {
				t.Fatal(err)
			}
			creates := 0
			for i, e := range log {
				if e != "create" {
					continue
				}
				creates++
				if i == 0 || log[i-1] != "barrier filled" {
					t.Errorf("event %d is a create after %q; want the barrier before it to find the buffer filled (events %q)", i, log[max(i-1, 0)], log)
				}
			}
			if creates != 2 {
				t.Errorf("%d creates; want 2 (events %q)", creates, log)
			}
		})
	}
}
