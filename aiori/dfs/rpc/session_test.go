package rpc

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// TestSessionRefuses checks the engine's answers to requests a correct
// client never sends: each gets an error reply of the kind the table
// says.
func TestSessionRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  []byte
		want Kind
	}{
		{"unknown op", (&Msg{ID: 1, Op: OpMax}).Encode(nil), KindInvalid},
		{"op 0", (&Msg{ID: 1}).Encode(nil), KindInvalid},
		{"handle not open", (&Msg{ID: 1, Op: OpGet, Handle: 99}).Encode(nil), KindInvalid},
		{"RMA without RMA", (&Msg{ID: 1, Op: OpWriteArray, Handle: 1, Mode: ModeRMA, DataLen: 10, Key: []byte("k")}).Encode(nil), KindInvalid},
		{"RMA for a Put", (&Msg{ID: 1, Op: OpPut, Handle: 1, Mode: ModeRMA, DataLen: 10}).Encode(nil), KindInvalid},
		{"read too large", (&Msg{ID: 1, Op: OpReadArray, Handle: 1, B: MaxData + 1}).Encode(nil), KindInvalid},
		{"read negative", (&Msg{ID: 1, Op: OpReadArray, Handle: 1, B: -1}).Encode(nil), KindInvalid},
		{"malformed", []byte("short"), KindInvalid},
		{"reserved byte 14", reserved(14), KindInvalid},
		{"an Unlink's condition 2", (&Msg{ID: 1, Op: OpUnlink, Handle: 1, S1: "d", C: 2}).Encode(nil), KindInvalid},
		{"a plain Unlink of nothing", (&Msg{ID: 1, Op: OpUnlink, Handle: 1, S1: "d"}).Encode(nil), KindNotExist},
		{"reserved byte 15", reserved(15), KindInvalid},
		{"a good Get", (&Msg{ID: 1, Op: OpGet, Handle: 1, S1: "d"}).Encode(nil), KindNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := memobj.NewPool()
			conn := &oneShotConn{req: tc.req}
			ss := newSession(&server{pool: pool}, conn)
			ss.handles[1] = OpenCont(t, pool, "c")
			defer ss.close()
			ss.run(context.Background()) // ends when the conn reports the client gone
			var rep Msg
			if err := rep.Decode(conn.reply); err != nil || rep.Kind != tc.want {
				t.Errorf("reply %+v, %v; want kind %d", rep, err, tc.want)
			}
		})
	}
}

// reserved returns a Get request with its reserved byte i set.
func reserved(i int) []byte {
	b := (&Msg{ID: 1, Op: OpGet, Handle: 1, S1: "d"}).Encode(nil)
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
	if tag == TagRep {
		c.reply = append(c.reply[:0], b...)
	}
	return nil
}

func (c *oneShotConn) Recv(ctx context.Context, tag uint32, b []byte) (int, error) {
	if tag != TagReq || c.req == nil {
		return 0, fabric.ErrClosed
	}
	n := copy(b, c.req)
	c.req = nil
	return n, nil
}

func (c *oneShotConn) Close() error { return nil }
