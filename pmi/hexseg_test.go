//go:build unix

package pmi

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestHexEncode(t *testing.T) {
	if got := encodeHex([]byte{0x00, 0x0a, 0xbc, 0xff, 0x2f}); got != "000ABCFF2F" {
		t.Fatalf("encodeHex = %q, want upper case 000ABCFF2F", got)
	}
	for _, s := range []string{"000ABCFF2F", "000abcff2f", "000aBcFf2F"} {
		if b, err := decodeHex(s); err != nil || !bytes.Equal(b, []byte{0x00, 0x0a, 0xbc, 0xff, 0x2f}) {
			t.Errorf("decodeHex(%q) = %x, %v", s, b, err)
		}
	}
	for _, s := range []string{"ABC", "GG", "0x00"} {
		if _, err := decodeHex(s); err == nil {
			t.Errorf("decodeHex(%q) succeeded", s)
		}
	}
}

// TestHexPutBytesRoundTrip stores data of sizes around the segment size and
// checks both the stored layout (MPICH's put_ex) and the round trip.
func TestHexPutBytesRoundTrip(t *testing.T) {
	for _, vallen := range []int{1024, 256} {
		t.Run("vallen="+strconv.Itoa(vallen), func(t *testing.T) {
			t.Parallel()
			kvs := newFakeKVS(vallen)
			c := kvs.connect(t)
			ctx := bounded(t)
			seg := segmentSize(c.MaxValueLen())
			rng := rand.New(rand.NewPCG(1, uint64(vallen)))
			for _, size := range []int{0, 1, seg - 1, seg, seg + 1, 5000} {
				key := fmt.Sprintf("blob-%d", size)
				data := make([]byte, size)
				for i := range data {
					data[i] = byte(rng.UintN(256))
				}
				if err := c.PutBytes(ctx, key, data); err != nil {
					t.Fatalf("PutBytes(%d bytes): %v", size, err)
				}
				got, err := c.GetBytes(ctx, key)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("GetBytes(%d bytes) = %d bytes, %v", size, len(got), err)
				}
				kv, _ := kvs.store()
				if size < seg {
					if kv[key] != encodeHex(data) {
						t.Errorf("size %d: stored %q, want one upper-case hex value", size, clip(kv[key]))
					}
					continue
				}
				n := (size + seg - 1) / seg
				if want := "segments=" + strconv.Itoa(n); kv[key] != want {
					t.Errorf("size %d: stored %q, want %q", size, kv[key], want)
				}
				for i := 1; i <= n; i++ {
					sk := fmt.Sprintf("%s-seg-%d/%d", key, i, n)
					v, ok := kv[sk]
					wantLen := 2 * min(seg, size-(i-1)*seg)
					if !ok || len(v) != wantLen || v != strings.ToUpper(v) {
						t.Errorf("size %d: segment %q = %d hex digits (stored %v), want %d upper case", size, sk, len(v), ok, wantLen)
					}
				}
			}
			if err := c.Finalize(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHexMPICHSegments: a Go client reads the segmented values MPICH 4.0.2
// stored under vallen_max=256 (proto-smallval-n2), and storing the same
// bytes produces exactly MPICH's put lines.
func TestHexMPICHSegments(t *testing.T) {
	for rank := range 2 {
		t.Run("rank"+strconv.Itoa(rank), func(t *testing.T) {
			t.Parallel()
			key := fmt.Sprintf("-allgather-shm-1-%d", rank)
			var mpichPuts []string
			from := newFakeKVS(256)
			for _, e := range clTranscript(t, fmt.Sprintf("testdata/transcripts/proto-smallval-n2/rank%d.txt", rank)) {
				m, err := ParseLine(e.req)
				if err != nil {
					t.Fatal(err)
				}
				k, _ := m.Get("key")
				if m.Cmd != "put" || !strings.HasPrefix(k, key) {
					continue
				}
				v, _ := m.Get("value")
				from.kv[k] = v
				mpichPuts = append(mpichPuts, strings.Replace(e.req, "kvsname=kvs_proto_0", "kvsname=kvs_fake", 1))
			}
			if len(mpichPuts) != 3 || from.kv[key] != "segments=2" {
				t.Fatalf("transcript puts %q: want segments=2 and two segments", mpichPuts)
			}
			c := from.connect(t)
			ctx := bounded(t)
			got, err := c.GetBytes(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeHex(from.kv[key+"-seg-1/2"] + from.kv[key+"-seg-2/2"])
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 215 || !bytes.Equal(got, want) {
				t.Fatalf("GetBytes = %d bytes, want the 215-byte UCX address", len(got))
			}

			to := newFakeKVS(256)
			c2 := to.connect(t)
			if err := c2.PutBytes(ctx, key, got); err != nil {
				t.Fatal(err)
			}
			if _, puts := to.store(); strings.Join(puts, "\n") != strings.Join(mpichPuts, "\n") {
				t.Errorf("Go put lines differ from MPICH's:\n got %q\nwant %q", puts, mpichPuts)
			}
			c.Close()
			c2.Close()
		})
	}
}

// TestHexGetBytesErrors: bad stored values are errors; a missing segment is
// ErrNoKey; a segmented put whose segment keys would be too long sends
// nothing.
func TestHexGetBytesErrors(t *testing.T) {
	kvs := newFakeKVS(1024)
	for k, v := range map[string]string{
		"lower": "0aff", "odd": "ABC", "nothex": "XYZW", "zero": "segments=0",
		"word": "segments=two", "huge": "segments=99999999", "gap": "segments=2", "gap-seg-1/2": "00",
		"badseg": "segments=1", "badseg-seg-1/1": "0G",
	} {
		kvs.kv[k] = v
	}
	c := kvs.connect(t)
	ctx := bounded(t)
	if b, err := c.GetBytes(ctx, "lower"); err != nil || !bytes.Equal(b, []byte{0x0a, 0xff}) {
		t.Errorf("GetBytes(lower) = %x, %v", b, err)
	}
	for key, want := range map[string]string{
		"odd":     `pmi: get_bytes "odd": value is not hex`,
		"nothex":  "value is not hex",
		"zero":    "want segments=<n> with n in [1, 65536]",
		"word":    "want segments=<n>",
		"huge":    "want segments=<n>",
		"badseg":  `get_bytes "badseg": segment 1/1: value is not hex`,
		"gap":     `get "gap-seg-2/2": key not found`,
		"missing": "key not found",
	} {
		_, err := c.GetBytes(ctx, key)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GetBytes(%q) = %v, want an error containing %q", key, err, want)
		}
		if isNoKey := errors.Is(err, ErrNoKey); isNoKey != (key == "gap" || key == "missing") {
			t.Errorf("GetBytes(%q): errors.Is(ErrNoKey) = %v", key, isNoKey)
		}
	}
	longKey := strings.Repeat("k", 56) // fits alone, not with "-seg-1/15"
	if err := c.PutBytes(ctx, longKey, make([]byte, 5000)); err == nil || !strings.Contains(err.Error(), "segment keys are too long") {
		t.Errorf("PutBytes with a long key = %v, want a key-length error", err)
	}
	if err := c.PutBytes(ctx, longKey, make([]byte, 10)); err != nil {
		t.Errorf("PutBytes of one value with the same key: %v", err)
	}
	if _, puts := kvs.store(); len(puts) != 1 {
		t.Errorf("server saw %d puts, want 1: %q", len(puts), puts)
	}
	c.Close()
}
