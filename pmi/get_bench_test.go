package pmi

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The benchmarks below measure the get path that dominates a job's
// bootstrap at scale: with "hpcbench wireup --pattern all" every rank gets
// every rank's card, N² round trips to the one launcher-side Server.

const benchKVS = "kvs_bench"

// benchCard is the hex of a 64-byte card, as wireup stores it by default.
var benchCard = strings.Repeat("0123456789ABCDEF", 8)

func BenchmarkEngineGet(b *testing.B) {
	eng, err := NewEngine(EngineConfig{Size: 1, KVSName: benchKVS, ProcessMapping: processMappingFor(1)})
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range []string{
		"cmd=init pmi_version=1 pmi_subversion=1\n",
		"cmd=put kvsname=" + benchKVS + " key=wireup-card-7 value=" + benchCard + "\n",
	} {
		if outs := eng.Handle(0, line); len(outs) != 1 || outs[0].Kind != OutReply {
			b.Fatalf("Handle(%q) = %v", line, describeOuts(outs))
		}
	}
	get := "cmd=get kvsname=" + benchKVS + " key=wireup-card-7\n"
	want := "cmd=get_result rc=0 msg=success value=" + benchCard + "\n"
	b.ReportAllocs()
	for b.Loop() {
		outs := eng.Handle(0, get)
		if len(outs) != 1 || outs[0].Line != want {
			b.Fatalf("Handle(get) = %v", describeOuts(outs))
		}
	}
}

// parsedSink keeps ParseLine's result alive, as every real caller does, so
// the compiler cannot keep the pairs on the stack.
var parsedSink Msg

func BenchmarkParseLine(b *testing.B) {
	for _, bc := range []struct{ name, line string }{
		{"request", "cmd=get kvsname=" + benchKVS + " key=wireup-card-7\n"},
		{"reply", "cmd=get_result rc=0 msg=success value=" + benchCard + "\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.line)))
			for b.Loop() {
				m, err := ParseLine(bc.line)
				if err != nil {
					b.Fatal(err)
				}
				parsedSink = m
			}
		})
	}
}

// benchJob runs a real Server for a one-rank job and connects a real Client
// to it over the rank's socketpair, as a launched rank does through PMI_FD.
// Cleanup finalizes the client and waits for the server.
func benchJob(b testing.TB) (context.Context, *Client) {
	b.Helper()
	s, err := NewServer(ServerConfig{Engine: EngineConfig{Size: 1, KVSName: benchKVS, ProcessMapping: processMappingFor(1)}})
	if err != nil {
		b.Fatal(err)
	}
	fd, err := unix.Dup(int(s.ClientFile(0).Fd()))
	if err != nil {
		b.Fatal(err)
	}
	s.CloseClientFile(0)
	// A deadline on every request, as wireup sets one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	env := map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": "0", "PMI_SIZE": "1"}
	c, err := Connect(ctx, ClientOptions{Getenv: mapEnv(env)})
	if err != nil {
		unix.Close(fd)
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		defer cancel()
		if err := c.Finalize(ctx); err != nil {
			b.Errorf("finalize: %v", err)
		}
		select {
		case err := <-done:
			if err != nil {
				b.Errorf("server: %v", err)
			}
		case <-time.After(10 * time.Second):
			b.Errorf("server did not return")
		}
	})
	return ctx, c
}

func BenchmarkServerGetRoundTrip(b *testing.B) {
	ctx, c := benchJob(b)
	if err := c.Put(ctx, "wireup-card-7", benchCard); err != nil {
		b.Fatal(err)
	}
	if err := c.Barrier(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := c.Get(ctx, "wireup-card-7")
		if err != nil || v != benchCard {
			b.Fatalf("Get = %q, %v", v, err)
		}
	}
}

func BenchmarkClientGetBytes(b *testing.B) {
	for _, size := range []int{64, 4096} {
		b.Run(strconv.Itoa(size)+"B", func(b *testing.B) {
			ctx, c := benchJob(b)
			card := make([]byte, size)
			for i := range card {
				card[i] = byte(i * 7)
			}
			if err := c.PutBytes(ctx, "card", card); err != nil {
				b.Fatal(err)
			}
			if err := c.Barrier(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				got, err := c.GetBytes(ctx, "card")
				if err != nil || len(got) != size || got[size-1] != card[size-1] {
					b.Fatalf("GetBytes = %d bytes, %v", len(got), err)
				}
			}
		})
	}
}

// TestGetFastPathsMatch checks the allocation-free paths the benchmarks
// measure against the plain code they replace: hex decoding against
// encoding/hex, appendFormat against Format, parsing into a reused slice
// against ParseLine, and the engine's pre-formatted get reply against
// Format.
func TestGetFastPathsMatch(t *testing.T) {
	for _, s := range []string{"", "00", "0aFf", "ABC", "A", "G0", "0G", "XYZW", "0a0", "0a0G", "0a0g0", "\xff\xfe", benchCard} {
		want, wantErr := hex.DecodeString(s)
		got, err := decodeHex(s)
		if (err == nil) != (wantErr == nil) || (err != nil && !errors.Is(err, wantErr) && err.Error() != "value is not hex: "+wantErr.Error()) {
			t.Errorf("decodeHex(%q) error %v, want one wrapping %v", s, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("decodeHex(%q) = %x, want %x", s, got, want)
		}
		if err != nil && got != nil {
			t.Errorf("decodeHex(%q) returned bytes with an error", s)
		}
	}

	for _, kv := range [][]string{nil, {"pmiid", "3"}, {"kvsname", benchKVS, "key", "k", "value", "a=b"}, {"k", ""}} {
		if got, want := string(appendFormat([]byte("junk"), "put", kv...)), "junk"+Format("put", kv...); got != want {
			t.Errorf("appendFormat(%q) = %q, want %q", kv, got, want)
		}
	}

	scratch := make([]Pair, 0, 1)
	for _, line := range []string{
		"cmd=get kvsname=k key=a\n", " \tcmd=set\t\tsize=2 ", "cmd=a b=c d=e f=g h=i j=k l=m n=o p=q r=s",
		"hello", "cmd=", "k=v", "mcmd=spawn", "cmd=put value=" + strings.Repeat("F", MaxLine),
	} {
		want, wantErr := ParseLine(line)
		got, err := parseLine(line, scratch)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("parseLine(%q) error %v, want %v", line, err, wantErr)
		}
		if got.Cmd != want.Cmd || !slices.Equal(got.Pairs, want.Pairs) {
			t.Errorf("parseLine(%q) = %q %q, want %q %q", line, got.Cmd, got.Pairs, want.Cmd, want.Pairs)
		}
		if err == nil {
			scratch = got.Pairs[:0]
		}
	}

	eng, err := NewEngine(EngineConfig{Size: 1, KVSName: benchKVS, ProcessMapping: processMappingFor(1)})
	if err != nil {
		t.Fatal(err)
	}
	eng.Handle(0, "cmd=init pmi_version=1 pmi_subversion=1")
	for _, val := range []string{"", "a=b", benchCard, strings.Repeat("v", 900)} {
		if outs := eng.Handle(0, "cmd=put kvsname="+benchKVS+" key=k value="+val); len(outs) != 1 || outs[0].Line != "cmd=put_result rc=0 msg=success\n" {
			t.Fatalf("put of %d bytes: %v", len(val), describeOuts(outs))
		}
		outs := eng.Handle(0, "cmd=get kvsname="+benchKVS+" key=k")
		if want := Format("get_result", "rc", "0", "msg", "success", "value", val); len(outs) != 1 || outs[0].Line != want {
			t.Errorf("get of %q: %v, want %q", val, describeOuts(outs), want)
		}
		if v, ok := eng.Lookup("k"); !ok || v != val {
			t.Errorf("Lookup(k) = %q, %v, want %q", v, ok, val)
		}
	}
	if v, ok := eng.Lookup("PMI_process_mapping"); !ok || v != processMappingFor(1) {
		t.Errorf("Lookup(PMI_process_mapping) = %q, %v", v, ok)
	}
	if _, ok := eng.Lookup("nope"); ok {
		t.Error("Lookup of a missing key succeeded")
	}
}
