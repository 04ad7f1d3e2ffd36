package rpc

import (
	"context"
	"testing"

	"github.com/hpcbench/hpcbench/objstore/object/memobj"
)

// TestSessionRefuses checks the engine's answers to requests a correct
// client never sends: each gets an error reply of the kind the table
// says.
func TestSessionRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  []byte
		want kind
	}{
		{"unknown op", (&msg{id: 1, op: opMax}).encode(nil), kindInvalid},
		{"op 0", (&msg{id: 1}).encode(nil), kindInvalid},
		{"handle not open", (&msg{id: 1, op: opGet, handle: 99}).encode(nil), kindInvalid},
		{"RMA without RMA", (&msg{id: 1, op: opWriteArray, handle: 1, mode: modeRMA, dataLen: 10, key: []byte("k")}).encode(nil), kindInvalid},
		{"RMA for a Put", (&msg{id: 1, op: opPut, handle: 1, mode: modeRMA, dataLen: 10}).encode(nil), kindInvalid},
		{"read too large", (&msg{id: 1, op: opReadArray, handle: 1, b: maxData + 1}).encode(nil), kindInvalid},
		{"read negative", (&msg{id: 1, op: opReadArray, handle: 1, b: -1}).encode(nil), kindInvalid},
		{"malformed", []byte("short"), kindInvalid},
		{"reserved byte 14", reserved(14), kindInvalid},
		{"an Unlink's condition 2", (&msg{id: 1, op: opUnlink, handle: 1, s1: "d", c: 2}).encode(nil), kindInvalid},
		{"a plain Unlink of nothing", (&msg{id: 1, op: opUnlink, handle: 1, s1: "d"}).encode(nil), kindNotExist},
		{"reserved byte 15", reserved(15), kindInvalid},
		{"a good Get", (&msg{id: 1, op: opGet, handle: 1, s1: "d"}).encode(nil), kindNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := memobj.NewPool()
			conn := &oneShotConn{req: tc.req}
			ss := newSession(&server{pool: pool}, conn)
			ss.handles[1] = openCont(t, pool, "c")
			defer ss.close()
			ss.run(context.Background()) // ends when the conn reports the client gone
			var rep msg
			if err := rep.decode(conn.reply); err != nil || rep.kind != tc.want {
				t.Errorf("reply %+v, %v; want kind %d", rep, err, tc.want)
			}
		})
	}
}

// reserved returns a Get request with its reserved byte i set.
func reserved(i int) []byte {
	b := (&msg{id: 1, op: opGet, handle: 1, s1: "d"}).encode(nil)
	b[i] = 1
	return b
}
