package verbs

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckTransition(t *testing.T) {
	for _, tc := range []struct {
		from, to QPState
		ok       bool
		msg      string
	}{
		{QPSReset, QPSInit, true, ""},
		{QPSInit, QPSRTR, true, ""},
		{QPSRTR, QPSRTS, true, ""},
		{QPSRTS, QPSErr, true, ""},
		{QPSInit, QPSErr, true, ""},
		{QPSErr, QPSReset, true, ""},
		{QPSRTS, QPSReset, true, ""},
		{QPSReset, QPSRTR, false, "QP state RESET -> RTR: not a legal transition (from RESET: INIT, ERR or RESET)"},
		{QPSReset, QPSRTS, false, "RESET -> RTS"},
		{QPSInit, QPSRTS, false, "QP state INIT -> RTS: not a legal transition (from INIT: RTR, ERR or RESET)"},
		{QPSRTR, QPSInit, false, "RTR -> INIT"},
		{QPSRTS, QPSRTR, false, "from RTS only ERR or RESET"},
		{QPSErr, QPSRTS, false, "QP state ERR -> RTS: not a legal transition (from ERR only ERR or RESET)"},
		{QPSRTS, QPSInit, false, "RTS -> INIT"},
	} {
		err := CheckTransition(tc.from, tc.to)
		if tc.ok {
			if err != nil {
				t.Errorf("CheckTransition(%s, %s) = %v; want nil", tc.from, tc.to, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("CheckTransition(%s, %s) = %v; want an error containing %q", tc.from, tc.to, err, tc.msg)
		}
	}
}

func TestCheckAttr(t *testing.T) {
	remote := Endpoint{LID: 3, QPN: 0x42, PSN: 0x123456, MTU: MTU4096}
	rtr := RTRAttr(remote, MTU1024, false, 0, DefaultRdAtomic)
	for _, tc := range []struct {
		name string
		from QPState
		attr QPAttr
		want string // "" for nil
	}{
		{"init", QPSReset, InitAttr(1, AccessRemoteWrite), ""},
		{"init port 0", QPSReset, InitAttr(0, 0), "port 0: must be in [1, 255]"},
		{"init from INIT", QPSInit, InitAttr(1, 0), "INIT -> INIT: not a legal transition"},
		{"rtr by LID", QPSInit, rtr, ""},
		{"rtr by GID", QPSInit, RTRAttr(Endpoint{QPN: 7, GID: GID{15: 1}}, MTU1024, true, 3, 16), ""},
		{"rtr no address", QPSInit, RTRAttr(Endpoint{QPN: 7}, MTU1024, false, 0, 16), "no destination"},
		{"rtr bad MTU", QPSInit, RTRAttr(remote, 9, false, 0, 16), "path MTU 9"},
		{"rtr QPN 0", QPSInit, RTRAttr(Endpoint{LID: 1}, MTU1024, false, 0, 16), "destination QP number 0x0"},
		{"rtr QPN too big", QPSInit, RTRAttr(Endpoint{LID: 1, QPN: 1 << 24}, MTU1024, false, 0, 16), "destination QP number 0x1000000"},
		{"rtr PSN too big", QPSInit, RTRAttr(Endpoint{LID: 1, QPN: 1, PSN: 1 << 24}, MTU1024, false, 0, 16), "receive PSN"},
		{"rtr from RESET", QPSReset, rtr, "RESET -> RTR"},
		{"rts", QPSRTR, RTSAttr(0xabc, 16), ""},
		{"rts PSN", QPSRTR, RTSAttr(1<<24, 16), "send PSN 0x1000000"},
		{"rts retry", QPSRTR, func() QPAttr { a := RTSAttr(1, 16); a.RetryCnt = 8; return a }(), "retry count 8"},
		{"rts from INIT", QPSInit, RTSAttr(1, 16), "INIT -> RTS"},
		{"err from anything", QPSRTS, QPAttr{State: QPSErr}, ""},
	} {
		err := CheckAttr(tc.from, tc.attr)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: CheckAttr = %v; want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: CheckAttr = %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// recordingQP is a QP that records Modify calls and fails them on demand.
type recordingQP struct {
	QP
	calls []QPState
	fail  error
}

func (q *recordingQP) Num() uint32 { return 0x11 }

func (q *recordingQP) Modify(a QPAttr) error {
	if q.fail != nil {
		return q.fail
	}
	q.calls = append(q.calls, a.State)
	return nil
}

func TestStateQPMove(t *testing.T) {
	rq := &recordingQP{}
	q := &stateQP{qp: rq}
	steps := []QPAttr{
		InitAttr(1, AccessLocalWrite),
		RTRAttr(Endpoint{LID: 1, QPN: 9}, MTU2048, false, 0, 16),
		RTSAttr(5, 16),
	}
	for _, a := range steps {
		if err := q.move(a); err != nil {
			t.Fatalf("move to %s: %v", a.State, err)
		}
	}
	if q.state != QPSRTS || len(rq.calls) != 3 {
		t.Fatalf("after three moves: state %s, %d Modify calls; want RTS, 3", q.state, len(rq.calls))
	}
	// An illegal transition never reaches the device.
	err := q.move(InitAttr(1, 0))
	if err == nil || !strings.Contains(err.Error(), "modify QP 0x11: QP state RTS -> INIT") {
		t.Fatalf("RTS -> INIT: %v", err)
	}
	if len(rq.calls) != 3 {
		t.Fatalf("the illegal move reached the device: %v", rq.calls)
	}
	// A device failure keeps the old state and says both.
	rq.fail = Errno("ibv_modify_qp", 22)
	err = q.move(QPAttr{State: QPSErr})
	if want := "modify QP 0x11 RTS -> ERR: ibv_modify_qp: Invalid argument (errno 22)"; err == nil || err.Error() != want {
		t.Fatalf("failing Modify: %v; want %q", err, want)
	}
	var ce *CallError
	if !errors.As(err, &ce) || ce.Call != "ibv_modify_qp" {
		t.Fatalf("failing Modify: %v is not a *CallError", err)
	}
	if q.state != QPSRTS {
		t.Fatalf("state after a failed Modify = %s; want RTS", q.state)
	}
}
