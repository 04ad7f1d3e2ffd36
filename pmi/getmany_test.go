package pmi

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestGetMany reads more keys than a pipeline window, a value split into
// segments and a missing key, pipelined and not, from a real Server: the
// same values in order, ErrNoKey for the missing key, and a connection
// that still serves requests afterwards.
func TestGetMany(t *testing.T) {
	for _, pipelined := range []bool{false, true} {
		t.Run("pipelined="+strconv.FormatBool(pipelined), func(t *testing.T) {
			ctx, c := benchJob(t)
			var keys, want []string
			for i := range 3*pipelineWindow + 5 {
				k, v := "k"+strconv.Itoa(i), "v"+strconv.Itoa(i*i)
				if err := c.Put(ctx, k, v); err != nil {
					t.Fatal(err)
				}
				keys, want = append(keys, k), append(want, v)
			}
			long := bytes.Repeat([]byte("0123456789abcdef"), 300) // several segments
			if err := c.PutBytes(ctx, "long", long); err != nil {
				t.Fatal(err)
			}
			if err := c.PutBytes(ctx, "short", []byte("card")); err != nil {
				t.Fatal(err)
			}
			if err := c.Barrier(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := c.GetMany(ctx, keys, pipelined)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("GetMany = %q, want %q", got, want)
			}
			bs, err := c.GetBytesMany(ctx, []string{"short", "long", "short"}, pipelined)
			if err != nil {
				t.Fatal(err)
			}
			if len(bs) != 3 || string(bs[0]) != "card" || !bytes.Equal(bs[1], long) || string(bs[2]) != "card" {
				t.Errorf("GetBytesMany = %d values (%q...), want card, the long value, card", len(bs), bs)
			}
			_, err = c.GetMany(ctx, []string{"k1", "nope", "k2"}, pipelined)
			if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), `"nope"`) {
				t.Errorf("GetMany with a missing key: %v, want ErrNoKey naming \"nope\"", err)
			}
			if v, err := c.Get(ctx, "k3"); err != nil || v != "v9" {
				t.Errorf("Get after the missing key = %q, %v, want v9", v, err)
			}
			if _, err := c.GetMany(ctx, []string{"bad key"}, pipelined); err == nil {
				t.Error("GetMany of a key with a space: no error")
			}
		})
	}
}

// TestServerPipelinedReplies sends three requests in one write and reads
// their replies in order, as a pipelining client does.
func TestServerPipelinedReplies(t *testing.T) {
	s := testServer(t, 1, nil)
	rr := newRawRank(t, s, 0)
	sr := runServer(t, s)
	rr.send("cmd=init pmi_version=1 pmi_subversion=1")
	rr.expect("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
	rr.send("cmd=put kvsname=kvs_t key=a value=1\ncmd=put kvsname=kvs_t key=b value=2")
	rr.expect("cmd=put_result rc=0 msg=success")
	rr.expect("cmd=put_result rc=0 msg=success")
	rr.send("cmd=get kvsname=kvs_t key=b\ncmd=get kvsname=kvs_t key=zz\ncmd=get kvsname=kvs_t key=a")
	rr.expect("cmd=get_result rc=0 msg=success value=2")
	rr.expect("cmd=get_result rc=-1 msg=key_zz_not_found value=unknown")
	rr.expect("cmd=get_result rc=0 msg=success value=1")
	rr.send("cmd=finalize")
	rr.expect("cmd=finalize_ack")
	rr.conn.Close()
	if err := wait(t, sr); err != nil {
		t.Fatal(err)
	}
}

// TestGetManyTrace checks that a pipelined batch is traced one request
// per line, as the transcripts are written.
func TestGetManyTrace(t *testing.T) {
	var buf bytes.Buffer
	tr := &wireTrace{w: &buf}
	tr.line("C: ", "cmd=get kvsname=k key=a\ncmd=get kvsname=k key=b\n")
	if want := "C: cmd=get kvsname=k key=a\nC: cmd=get kvsname=k key=b\n"; buf.String() != want {
		t.Errorf("trace = %q, want %q", buf.String(), want)
	}
}

func BenchmarkGetMany(b *testing.B) {
	for _, pipelined := range []bool{false, true} {
		b.Run(fmt.Sprintf("pipelined=%v", pipelined), func(b *testing.B) {
			ctx, c := benchJob(b)
			keys := make([]string, 1024)
			for i := range keys {
				keys[i] = "wireup-card-" + strconv.Itoa(i)
				if err := c.Put(ctx, keys[i], benchCard); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Barrier(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(keys)), "gets/op")
			for b.Loop() {
				if _, err := c.GetMany(ctx, keys, pipelined); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOwnLauncher: only a variable naming the job's own KVS says that
// hpcbench launch serves it.
func TestOwnLauncher(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{EnvLauncherKVS: "kvs_theirs"}, false},
		{map[string]string{EnvLauncherKVS: ""}, false},
		{map[string]string{EnvLauncherKVS: "kvs_ours"}, true},
	} {
		getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok && v != "" }
		if got := ownLauncher(getenv, "kvs_ours"); got != tc.want {
			t.Errorf("ownLauncher(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
