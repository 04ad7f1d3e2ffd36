package verbs

import (
	"errors"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, h := range []header{
		{kind: kindData, credits: 3, tag: 7, length: 1 << 20},
		{kind: kindMore, tag: 0xffffffff, length: MaxMessageSize},
		{kind: kindCredit, credits: 32},
		{kind: kindBye},
	} {
		b := make([]byte, hdrLen)
		putHeader(b, h)
		got, err := parseHeader(b)
		if err != nil || got != h {
			t.Errorf("parseHeader(putHeader(%+v)) = %+v, %v", h, got, err)
		}
	}
}

func TestParseHeaderMalformed(t *testing.T) {
	ok := make([]byte, hdrLen)
	putHeader(ok, header{kind: kindData})
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short", ok[:15], "a 15-byte slot, shorter than its 16-byte header"},
		{"kind 0", make([]byte, hdrLen), "unknown kind"},
		{"kind 5", append([]byte{5}, make([]byte, 15)...), "unknown kind"},
		{"reserved", append([]byte{kindData, 1}, make([]byte, 14)...), "reserved bits"},
		{"credit with payload", append([]byte{kindCredit}, make([]byte, 16)...), "a kind 3 slot of 17 bytes"},
	} {
		_, err := parseHeader(tc.b)
		if !errors.Is(err, errProtocol) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parseHeader = %v; want a protocol error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestFlow(t *testing.T) {
	f := newFlow(8, 6)
	if f.credits != 6 || f.threshold != 4 {
		t.Fatalf("newFlow(8, 6) = %+v; want 6 credits, threshold 4", f)
	}
	// Data spends down to the two kept back.
	sent := 0
	for f.canData() {
		f.spend()
		sent++
	}
	if sent != 4 || f.credits != 2 {
		t.Fatalf("data sent %d, %d credits left; want 4, 2", sent, f.credits)
	}
	if !f.canCredit() || !f.canBye() {
		t.Fatal("with 2 credits a credit message and a bye must still go")
	}
	f.spend() // a credit message
	if f.canCredit() || !f.canBye() {
		t.Fatal("with 1 credit only the bye may go")
	}
	f.spend()
	if f.canBye() {
		t.Fatal("with 0 credits nothing may go")
	}
	// Owing: piggy-backed on the next message, and due at the threshold.
	for range 3 {
		f.reposted()
	}
	if f.creditDue() {
		t.Fatal("3 owed of a threshold of 4: not due yet")
	}
	f.reposted()
	if !f.creditDue() {
		t.Fatal("4 owed: due")
	}
	if err := f.returned(6); err != nil {
		t.Fatal(err)
	}
	if n := f.spend(); n != 4 || f.owed != 0 || f.credits != 5 {
		t.Fatalf("spend returned %d, owed %d, credits %d; want 4, 0, 5", n, f.owed, f.credits)
	}
	// The peer cannot return more than its ring.
	if err := f.returned(2); !errors.Is(err, errProtocol) || !strings.Contains(err.Error(), "more than its 6 receive slots") {
		t.Fatalf("returning past the ring: %v", err)
	}
}

// TestFlowNoDeadlock plays two sides that both send data until blocked
// and then only poll: the credit messages must unblock them, for rings
// from the smallest up and of unequal sizes.
func TestFlowNoDeadlock(t *testing.T) {
	for _, tc := range []struct{ a, b int }{{4, 4}, {4, 5}, {7, 4}, {64, 64}, {4, 64}} {
		// in[x] counts the messages in flight to side x, consumed at once.
		type side struct {
			f        flow
			inFlight []uint32 // credits carried by messages to the other side
		}
		a := &side{f: newFlow(tc.a, tc.b)}
		b := &side{f: newFlow(tc.b, tc.a)}
		sentData := [2]int{}
		for round := range 10000 {
			for i, s := range []*side{a, b} {
				o := b
				if i == 1 {
					o = a
				}
				// Receive everything the other side sent: re-post and owe.
				for _, c := range o.inFlight {
					if err := s.f.returned(c); err != nil {
						t.Fatalf("%d/%d round %d: %v", tc.a, tc.b, round, err)
					}
					s.f.reposted()
				}
				o.inFlight = nil
				switch {
				case s.f.canData() && round%3 != 2:
					s.inFlight = append(s.inFlight, s.f.spend())
					sentData[i]++
				case s.f.creditDue() && s.f.canCredit():
					s.inFlight = append(s.inFlight, s.f.spend())
				}
			}
		}
		if sentData[0] < 1000 || sentData[1] < 1000 {
			t.Errorf("rings %d/%d: sent %v data messages in 10000 rounds; the credits stalled", tc.a, tc.b, sentData)
		}
	}
}

func TestSlotFree(t *testing.T) {
	s := newSlotFree(3)
	got := map[int]bool{}
	for range 3 {
		i, ok := s.get()
		if !ok || got[i] {
			t.Fatalf("get = %d, %v (have %v)", i, ok, got)
		}
		got[i] = true
	}
	if _, ok := s.get(); ok || s.idle() {
		t.Fatal("a fourth slot from three, or idle with all taken")
	}
	if err := s.put(1); err != nil {
		t.Fatal(err)
	}
	if err := s.put(7); err == nil {
		t.Fatal("put(7) of 3 slots succeeded")
	}
	for _, i := range []int{0, 2} {
		if err := s.put(i); err != nil {
			t.Fatal(err)
		}
	}
	if !s.idle() {
		t.Fatal("not idle with every slot back")
	}
	if err := s.put(0); err == nil || !strings.Contains(err.Error(), "not one in flight") {
		t.Fatalf("a slot put back twice: %v", err)
	}
}

func TestWRID(t *testing.T) {
	for _, tc := range []struct {
		kind uint8
		i    uint64
		what string
	}{{wrRecv, 5, "receive from rank 2"}, {wrSend, 63, "send to rank 2"}, {wrRMA, 1 << 40, "RDMA read from rank 2"}} {
		id := wrID(tc.kind, tc.i)
		k, i := splitWRID(id)
		if k != tc.kind || i != tc.i {
			t.Errorf("splitWRID(wrID(%d, %d)) = %d, %d", tc.kind, tc.i, k, i)
		}
		if got := describeWR(id, 2, "RDMA read from rank 2"); got != tc.what {
			t.Errorf("describeWR(%#x) = %q; want %q", id, got, tc.what)
		}
	}
}
