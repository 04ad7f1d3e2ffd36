package launch

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hpcbench/hpcbench/pmi"
)

// frameBody reads back the one frame in b, checking its type.
func frameBody(t *testing.T, b []byte, typ byte) []byte {
	t.Helper()
	got, body, _, err := readFrame(bytes.NewReader(b), nil)
	if err != nil || got != typ {
		t.Fatalf("readFrame = type %d, %v; want type %d", got, err, typ)
	}
	return body
}

// TestControlRoundTrip: every frame decodes to what was encoded.
func TestControlRoundTrip(t *testing.T) {
	t.Run("hello", func(t *testing.T) {
		in := hello{protocol: ctlProtocol, nonce: "n\x00nce"}
		if out, err := decodeHello(frameBody(t, in.encode(), ctlHello)); err != nil || out != in {
			t.Errorf("got %+v, %v; want %+v", out, err, in)
		}
	})
	t.Run("auth", func(t *testing.T) {
		in := auth{index: 7, version: "hpcbench dev", nonce: "abc", mac: "\xff\x00"}
		if out, err := decodeAuth(frameBody(t, in.encode(), ctlAuth)); err != nil || out != in {
			t.Errorf("got %+v, %v; want %+v", out, err, in)
		}
	})
	t.Run("job", func(t *testing.T) {
		in := &proxyJob{mac: "m", host: "h2", kvs: "kvs_1", mapping: "(vector,(0,2,2))", size: 4, ranks: []int{2, 3},
			command: []string{"hpcbench", "wireup"}, dir: "/tmp", env: []string{"A=1", "B="}, tag: true, bind: "core", traceDir: "/t"}
		out, err := decodeJob(frameBody(t, in.encode(), ctlJob))
		if err != nil || out.host != in.host || !slices.Equal(out.ranks, in.ranks) || !slices.Equal(out.command, in.command) ||
			!slices.Equal(out.env, in.env) || out.tag != in.tag || out.bind != in.bind || out.traceDir != in.traceDir || out.size != 4 {
			t.Errorf("got %+v, %v; want %+v", out, err, in)
		}
	})
	t.Run("events", func(t *testing.T) {
		in := []procEvent{{kind: evStarted, rank: 3, pid: 99}, {kind: evExited, rank: 2, status: syscall.WaitStatus(9)},
			{kind: evStartFailed, rank: 1, err: errors.New("no such file")}, {kind: evStopped, rank: 0, sig: syscall.SIGSTOP}}
		out, err := decodeEvents(frameBody(t, encodeEvents(in), ctlEvents), 4)
		if err != nil || len(out) != len(in) {
			t.Fatalf("got %+v, %v", out, err)
		}
		for i := range in {
			if out[i].kind != in[i].kind || out[i].rank != in[i].rank || out[i].pid != in[i].pid || out[i].status != in[i].status ||
				out[i].sig != in[i].sig || (in[i].err == nil) != (out[i].err == nil) {
				t.Errorf("event %d: got %+v, want %+v", i, out[i], in[i])
			}
		}
	})
	t.Run("notes", func(t *testing.T) {
		in := []timedNote{{Note: pmi.Note{Rank: 1, Kind: pmi.NotePhase, Phase: "write", Iter: -1, Amount: true, Done: 5, Total: 10}}}
		out, err := decodeNotes(frameBody(t, encodeNotes(in), ctlNotes), 2)
		if err != nil || len(out) != 1 || out[0] != in[0].Note {
			t.Errorf("got %+v, %v; want %+v", out, err, in[0].Note)
		}
	})
	t.Run("puts", func(t *testing.T) {
		in := []pmi.Pair{{Key: "k", Val: "v w"}, {Key: "x", Val: ""}}
		seq, out, err := decodePuts(frameBody(t, encodePuts(ctlBarrierOut, 3, in), ctlBarrierOut))
		if err != nil || seq != 3 || !slices.Equal(out, in) {
			t.Errorf("got %d %v, %v", seq, out, err)
		}
	})
	t.Run("fail", func(t *testing.T) {
		in := &pmi.RankError{Rank: 2, Abort: true, Code: -7, Err: errors.New("rank 2 called abort")}
		out, err := decodeFail(frameBody(t, encodeFail(in), ctlFail), 4)
		if err != nil || out.Rank != 2 || !out.Abort || out.Code != -7 || out.Err.Error() != in.Err.Error() {
			t.Errorf("got %+v, %v", out, err)
		}
	})
	t.Run("output and signal", func(t *testing.T) {
		s, b, err := decodeOutput(frameBody(t, encodeOutput(1, []byte("[2] line\n")), ctlOutput))
		if err != nil || s != 1 || string(b) != "[2] line\n" {
			t.Errorf("output: got %d %q, %v", s, b, err)
		}
		sig, all, err := decodeSignal(frameBody(t, encodeSignal(syscall.SIGTERM, true), ctlSignal))
		if err != nil || sig != syscall.SIGTERM || !all {
			t.Errorf("signal: got %v %v, %v", sig, all, err)
		}
	})
}

// TestControlRefuses: frames and bodies that do not decode.
func TestControlRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty frame", []byte{0, 0, 0, 0}, errFrame},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}, errFrame},
		{"unknown type", []byte{0, 0, 0, 1, 99}, errFrame},
		{"type zero", []byte{0, 0, 0, 1, 0}, errFrame},
		{"short body", []byte{0, 0, 0, 5, ctlBeat}, io.ErrUnexpectedEOF},
		{"short header", []byte{0, 0}, io.ErrUnexpectedEOF},
	} {
		if _, _, _, err := readFrame(bytes.NewReader(tc.in), nil); !errors.Is(err, tc.want) {
			t.Errorf("%s: readFrame = %v, want %v", tc.name, err, tc.want)
		}
	}
	bodies := []struct {
		name   string
		decode func([]byte) error
		body   []byte
	}{
		{"event of a rank outside the job", func(b []byte) error { _, err := decodeEvents(b, 4); return err },
			frameBody(t, encodeEvents([]procEvent{{kind: evStarted, rank: 4}}), ctlEvents)},
		{"a spawner's death as an event", func(b []byte) error { _, err := decodeEvents(b, 4); return err },
			frameBody(t, encodeEvents([]procEvent{{kind: evSpawnerDied, rank: 0}}), ctlEvents)},
		{"string longer than the frame", func(b []byte) error { _, err := decodeHello(b); return err }, []byte{1, 9, 'a'}},
		{"bytes after the last field", func(b []byte) error { _, err := decodeHello(b); return err }, []byte{1, 1, 'a', 0}},
		{"a job without ranks", func(b []byte) error { _, err := decodeJob(b); return err },
			frameBody(t, (&proxyJob{size: 2, command: []string{"x"}}).encode(), ctlJob)},
		{"a count beyond the bytes", func(b []byte) error { _, _, err := decodePuts(b); return err }, []byte{1, 100, 1, 'k'}},
	}
	for _, tc := range bodies {
		if err := tc.decode(tc.body); err == nil || !strings.Contains(err.Error(), "control frame") {
			t.Errorf("%s: decoded (%v), want a malformed frame", tc.name, err)
		}
	}
}

// FuzzControlFrame feeds the control protocol's decoders, the launcher's
// and the proxy's, what a peer (or a stranger on the control port) may
// send: they return an error or a value, never panic, and never read
// past a frame.
func FuzzControlFrame(f *testing.F) {
	for _, b := range [][]byte{
		hello{protocol: 1, nonce: "n"}.encode(),
		auth{index: 1, version: "v", nonce: "n", mac: "m"}.encode(),
		(&proxyJob{host: "h", size: 2, ranks: []int{1}, command: []string{"c"}}).encode(),
		encodeEvents([]procEvent{{kind: evExited, rank: 1, status: 256}}),
		encodeNotes([]timedNote{{Note: pmi.Note{Rank: 1, Kind: pmi.NotePhase, Phase: "p"}}}),
		encodePuts(ctlBarrierIn, 1, []pmi.Pair{{Key: "k", Val: "v"}}),
		encodeFail(&pmi.RankError{Rank: 1, Err: errors.New("x")}),
		encodeOutput(0, []byte("x\n")),
		encodeSignal(15, false),
		emptyFrame(ctlBeat),
		{0, 0, 0, 2, ctlEvents, 0xff},
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		var buf []byte
		for {
			typ, body, grown, err := readFrame(r, buf)
			buf = grown
			if err != nil {
				return
			}
			decodeHello(body)
			decodeAuth(body)
			decodeJob(body)
			decodeEvents(body, 8)
			decodeNotes(body, 8)
			decodePuts(body)
			decodeFail(body, 8)
			decodeOutput(body)
			decodeSignal(body)
			if typ < ctlHello || typ > ctlLast {
				t.Fatalf("readFrame returned type %d", typ)
			}
		}
	})
}
