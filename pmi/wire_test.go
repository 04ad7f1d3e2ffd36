package pmi

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestWireParseLine(t *testing.T) {
	// long builds a put line of exactly n bytes, newline included.
	long := func(n int) string {
		const head = "cmd=put kvsname=k key=a value="
		return head + strings.Repeat("A", n-len(head)-1) + "\n"
	}
	tests := []struct {
		name    string
		line    string
		cmd     string
		pairs   []Pair // nil: only cmd is checked
		rc      int
		wantErr string // substring of the *SyntaxError; "" means success
	}{
		{name: "put", line: "cmd=put kvsname=kvs_1 key=k value=v\n", cmd: "put",
			pairs: []Pair{{"cmd", "put"}, {"kvsname", "kvs_1"}, {"key", "k"}, {"value", "v"}}},
		{name: "fields in any order", line: "rc=0 value=x cmd=get_result msg=success", cmd: "get_result",
			pairs: []Pair{{"rc", "0"}, {"value", "x"}, {"cmd", "get_result"}, {"msg", "success"}}},
		{name: "missing rc means 0", line: "cmd=barrier_out", cmd: "barrier_out", rc: 0},
		{name: "hydra rc=-1", line: "cmd=get_result rc=-1 msg=key_k_not_found value=unknown", cmd: "get_result", rc: -1},
		{name: "flux rc=4", line: "cmd=get_result rc=4", cmd: "get_result", rc: 4},
		{name: "value containing =", line: "cmd=get_result rc=0 value=segments=2", cmd: "get_result",
			pairs: []Pair{{"cmd", "get_result"}, {"rc", "0"}, {"value", "segments=2"}}},
		{name: "value with several =", line: "cmd=x value=a=b=c", cmd: "x",
			pairs: []Pair{{"cmd", "x"}, {"value", "a=b=c"}}},
		{name: "empty value", line: "cmd=get_result rc=0 msg=success value=", cmd: "get_result",
			pairs: []Pair{{"cmd", "get_result"}, {"rc", "0"}, {"msg", "success"}, {"value", ""}}},
		{name: "trailing found=TRUE", line: "cmd=get_result rc=0 msg=success value=(vector,(0,1,1)) found=TRUE", cmd: "get_result",
			pairs: []Pair{{"cmd", "get_result"}, {"rc", "0"}, {"msg", "success"}, {"value", "(vector,(0,1,1))"}, {"found", "TRUE"}}},
		{name: "crlf", line: "cmd=finalize_ack\r\n", cmd: "finalize_ack", pairs: []Pair{{"cmd", "finalize_ack"}}},
		{name: "runs of spaces and tabs", line: "  cmd=set \t size=2   \n", cmd: "set",
			pairs: []Pair{{"cmd", "set"}, {"size", "2"}}},
		{name: "mcmd=spawn", line: "mcmd=spawn\n", cmd: "spawn", pairs: []Pair{{"mcmd", "spawn"}}},
		{name: "exactly MaxLine", line: long(MaxLine), cmd: "put"},
		{name: "over MaxLine", line: long(MaxLine + 1), wantErr: "exceeds the 1024-byte limit"},
		{name: "far over MaxLine", line: long(4000), wantErr: "exceeds"},
		{name: "missing cmd", line: "key=v value=w\n", wantErr: "no cmd= field"},
		{name: "empty line", line: "\n", wantErr: "no cmd= field"},
		{name: "empty cmd", line: "cmd= rc=0", wantErr: "empty cmd"},
		{name: "token without =", line: "cmd=get key\n", wantErr: `token "key" is not key=value`},
		{name: "token with empty key", line: "cmd=get =v", wantErr: "is not key=value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseLine(tc.line)
			if tc.wantErr != "" {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("ParseLine(%q) = %+v, %v; want *SyntaxError", clip(tc.line), m, err)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseLine error %q, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLine(%q): %v", clip(tc.line), err)
			}
			if m.Cmd != tc.cmd {
				t.Errorf("Cmd = %q, want %q", m.Cmd, tc.cmd)
			}
			if tc.pairs != nil && !slices.Equal(m.Pairs, tc.pairs) {
				t.Errorf("Pairs = %q, want %q", m.Pairs, tc.pairs)
			}
			rc, err := m.RC()
			if err != nil || rc != tc.rc {
				t.Errorf("RC() = %d, %v; want %d", rc, err, tc.rc)
			}
		})
	}
}

func TestWireRCNotInteger(t *testing.T) {
	m, err := ParseLine("cmd=put_result rc=success")
	if err != nil {
		t.Fatal(err)
	}
	var se *SyntaxError
	if _, err := m.RC(); !errors.As(err, &se) {
		t.Fatalf("RC() error = %v, want *SyntaxError", err)
	}
}

func TestWireFormat(t *testing.T) {
	got := Format("put", "kvsname", "kvs_1", "key", "-bcast-1-0", "value", "segments=2")
	if want := "cmd=put kvsname=kvs_1 key=-bcast-1-0 value=segments=2\n"; got != want {
		t.Fatalf("Format = %q, want %q", got, want)
	}
	m, err := ParseLine(got)
	if err != nil {
		t.Fatal(err)
	}
	if m.String()+"\n" != got {
		t.Fatalf("String() = %q, want %q", m.String(), got)
	}
}
