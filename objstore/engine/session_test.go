package engine

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
	"github.com/hpcbench/hpcbench/objstore/rpc"
	"github.com/hpcbench/hpcbench/objstore/rpc/rpctest"
)

// TestSessionRefuses checks the engine's answers to requests a correct
// client never sends: each gets an error reply of the kind the table
// says.
func TestSessionRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  []byte
		want rpc.Kind
	}{
		{"unknown op", (&rpc.Msg{ID: 1, Op: rpc.OpMax}).Encode(nil), rpc.KindInvalid},
		{"op 0", (&rpc.Msg{ID: 1}).Encode(nil), rpc.KindInvalid},
		{"handle not open", (&rpc.Msg{ID: 1, Op: rpc.OpGet, Handle: 99}).Encode(nil), rpc.KindInvalid},
		{"RMA without RMA", (&rpc.Msg{ID: 1, Op: rpc.OpWriteArray, Handle: 1, Mode: rpc.ModeRMA, DataLen: 10, Key: []byte("k")}).Encode(nil), rpc.KindInvalid},
		{"RMA for a Put", (&rpc.Msg{ID: 1, Op: rpc.OpPut, Handle: 1, Mode: rpc.ModeRMA, DataLen: 10}).Encode(nil), rpc.KindInvalid},
		{"read too large", (&rpc.Msg{ID: 1, Op: rpc.OpReadArray, Handle: 1, B: rpc.MaxData + 1}).Encode(nil), rpc.KindInvalid},
		{"read negative", (&rpc.Msg{ID: 1, Op: rpc.OpReadArray, Handle: 1, B: -1}).Encode(nil), rpc.KindInvalid},
		{"malformed", []byte("short"), rpc.KindInvalid},
		{"reserved byte 14", reserved(14), rpc.KindInvalid},
		{"an Unlink's condition 2", (&rpc.Msg{ID: 1, Op: rpc.OpUnlink, Handle: 1, S1: "d", C: 2}).Encode(nil), rpc.KindInvalid},
		{"a plain Unlink of nothing", (&rpc.Msg{ID: 1, Op: rpc.OpUnlink, Handle: 1, S1: "d"}).Encode(nil), rpc.KindNotExist},
		{"reserved byte 15", reserved(15), rpc.KindInvalid},
		{"a good Get", (&rpc.Msg{ID: 1, Op: rpc.OpGet, Handle: 1, S1: "d"}).Encode(nil), rpc.KindNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := memobj.NewPool()
			conn := &oneShotConn{req: tc.req}
			ss := newSession(&server{pool: pool}, conn)
			ss.handles[1] = rpctest.OpenCont(t, pool, "c")
			defer ss.close()
			ss.run(context.Background()) // ends when the conn reports the client gone
			var rep rpc.Msg
			if err := rep.Decode(conn.reply); err != nil || rep.Kind != tc.want {
				t.Errorf("reply %+v, %v; want kind %d", rep, err, tc.want)
			}
		})
	}
}

// reserved returns a Get request with its reserved byte i set.
func reserved(i int) []byte {
	b := (&rpc.Msg{ID: 1, Op: rpc.OpGet, Handle: 1, S1: "d"}).Encode(nil)
	b[i] = 1
	return b
}

// oneShotConn hands a session one request, then reports the client gone;
// it keeps the last reply the session sent.
type oneShotConn struct {
	req   []byte
	reply []byte
}

func (c *oneShotConn) Send(ctx context.Context, tag uint32, b []byte) error {
	if tag == rpc.TagRep {
		c.reply = append(c.reply[:0], b...)
	}
	return nil
}

func (c *oneShotConn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	if tag != rpc.TagReq || c.req == nil {
		return 0, fabric.ErrClosed
	}
	n := copy(b, c.req)
	c.req = nil
	return n, nil
}

func (c *oneShotConn) Close() error { return nil }
