package wireup

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/internal/testenv"
	"github.com/hpcbench/hpcbench/pmi"
	"github.com/hpcbench/hpcbench/report"
)

// noEnv is a Getenv that finds nothing, so Run is a singleton.
func noEnv(string) (string, bool) { return "", false }

func TestOptionsValidate(t *testing.T) {
	valid := Options{CardSize: DefaultCardSize, Pattern: PatternAll, Timeout: DefaultTimeout}
	for _, tc := range []struct {
		name string
		mut  func(*Options)
		want string // substring of the error; "" for valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"ring", func(o *Options) { o.Pattern = PatternRing }, ""},
		{"one byte", func(o *Options) { o.CardSize = 1 }, ""},
		{"largest card", func(o *Options) { o.CardSize = MaxCardSize }, ""},
		{"shortest timeout", func(o *Options) { o.Timeout = time.Nanosecond }, ""},
		{"card size 0", func(o *Options) { o.CardSize = 0 }, "--card-size 0: must be in [1, 1048576]"},
		{"negative card size", func(o *Options) { o.CardSize = -1 }, "--card-size -1"},
		{"card over 1 MiB", func(o *Options) { o.CardSize = 1<<20 + 1 }, "--card-size 1048577: must be in [1, 1048576]"},
		{"empty pattern", func(o *Options) { o.Pattern = "" }, `--pattern "": must be ring or all`},
		{"pattern is case-sensitive", func(o *Options) { o.Pattern = "ALL" }, `--pattern "ALL"`},
		{"pattern with a space", func(o *Options) { o.Pattern = "ring " }, `--pattern "ring "`},
		{"unknown pattern", func(o *Options) { o.Pattern = "star" }, `--pattern "star"`},
		{"zero timeout", func(o *Options) { o.Timeout = 0 }, "--timeout 0s: must be positive"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "--timeout -1s: must be positive"},
		// The card size is checked first, then the pattern, then the timeout.
		{"first error wins", func(o *Options) { *o = Options{} }, "--card-size 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := valid
			tc.mut(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCard(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 64, 4096} {
		a, b := card(7, 16, n), card(7, 16, n)
		if len(a) != n || !bytes.Equal(a, b) {
			t.Errorf("card(7, 16, %d): %d bytes, repeatable %v", n, len(a), bytes.Equal(a, b))
		}
		if n >= 4 {
			if r := binary.BigEndian.Uint32(a); r != 7 {
				t.Errorf("card(7, 16, %d) starts with rank %d, want 7", n, r)
			}
		}
	}
	// Every (rank, size) pair gives its own card, so a card fetched from the
	// wrong key, or left over from a job of another size, is detected.
	const n = 64
	seen := map[string]string{}
	for size := 1; size <= 48; size++ {
		for rank := range size {
			c := string(card(rank, size, n))
			who := fmt.Sprintf("rank %d of %d", rank, size)
			if prev, dup := seen[c]; dup {
				t.Fatalf("%s has the same %d-byte card as %s", who, n, prev)
			}
			seen[c] = who
		}
	}
	if cardKey(3) == cardKey(30) || cardKey(12) != "wireup-card-12" {
		t.Errorf("cardKey(3) = %q, cardKey(30) = %q, cardKey(12) = %q", cardKey(3), cardKey(30), cardKey(12))
	}
}

// sampleTimes returns distinct, exactly representable phase times for rank.
func sampleTimes(rank int) Times {
	var t Times
	for i := range t {
		t[i] = float64(rank+1)*0.25 + float64(i)/1024
	}
	return t
}

// gatherAsync runs col.gather(ctx, own) in the background.
func gatherAsync(ctx context.Context, col *collector, own Times) <-chan gatherResult {
	ch := make(chan gatherResult, 1)
	go func() {
		all, err := col.gather(ctx, record{times: own, host: hostOf(0)})
		ch <- gatherResult{all, err}
	}()
	return ch
}

type gatherResult struct {
	all []record
	err error
}

// hostOf is the host name rank r reports in these tests; rank 4's is the
// longest a record carries.
func hostOf(r int) string {
	if r == 4 {
		return strings.Repeat("h", maxHostLen)
	}
	return fmt.Sprintf("node%d", r/2)
}

// waitGather waits for gatherAsync's answer; every wait in these tests is
// bounded by ctx, and this one by a little more.
func waitGather(t *testing.T, ch <-chan gatherResult) gatherResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("gather did not return")
		return gatherResult{}
	}
}

func newTestCollector(t *testing.T, size int) *collector {
	t.Helper()
	col, err := newCollector(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(col.close)
	return col
}

// loopback is col's loopback address: the tests do not depend on the host
// name resolving.
func loopback(col *collector) string {
	_, port, _ := net.SplitHostPort(col.ln.Addr().String())
	return net.JoinHostPort("127.0.0.1", port)
}

func TestCollectorRoundTrip(t *testing.T) {
	const size = 5
	ctx := testenv.Context(t, 10*time.Second)
	col := newTestCollector(t, size)
	addr := loopback(col)
	if got := col.addr(""); !strings.HasSuffix(got, ","+addr) || strings.Count(got, ",") != 1 {
		t.Errorf(`addr("") = %q, want the host name and then %s`, got, addr)
	}
	_, port, _ := net.SplitHostPort(addr)
	if got := col.addr("10.9.8.7"); !strings.HasPrefix(got, "10.9.8.7:"+port+",") || !strings.HasSuffix(got, ","+addr) || strings.Count(got, ",") != 2 {
		t.Errorf(`addr("10.9.8.7") = %q, want the published address, the host name, then %s`, got, addr)
	}
	ch := gatherAsync(ctx, col, sampleTimes(0))

	// Special values travel bit for bit.
	special := Times{0, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(1), math.NaN()}
	var wg sync.WaitGroup
	errs := make([]error, size)
	for r := 1; r < size; r++ {
		tr := sampleTimes(r)
		if r == 3 {
			tr = special
		}
		// Rank 2 first tries a port nothing listens on, as a rank on
		// another node finds the host name unreachable.
		a := addr
		if r == 2 {
			a = "127.0.0.1:1," + addr
		}
		wg.Go(func() { errs[r] = sendTimes(ctx, a, r, tr, hostOf(r)) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("sendTimes from rank %d: %v", r, err)
		}
	}
	res := waitGather(t, ch)
	if res.err != nil {
		t.Fatalf("gather: %v", res.err)
	}
	if len(res.all) != size {
		t.Fatalf("gather returned %d records, want %d", len(res.all), size)
	}
	for r, rec := range res.all {
		got := rec.times
		if rec.host != hostOf(r) {
			t.Errorf("rank %d host %q, want %q", r, rec.host, hostOf(r))
		}
		want := sampleTimes(r)
		if r == 3 {
			want = special
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("rank %d phase %s: got %v, want %v", r, phaseNames[i], got[i], want[i])
			}
		}
	}
}

// rawRecord sends b to the collector as one connection's whole stream.
func rawRecord(t *testing.T, ctx context.Context, addr string, b []byte) {
	t.Helper()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestCollectorRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		send func(t *testing.T, ctx context.Context, addr string)
		want string
	}{
		{"rank 0 is the collector's own", 2, func(t *testing.T, ctx context.Context, addr string) {
			sendTimes(ctx, addr, 0, sampleTimes(0), "h")
		}, "result record names rank 0, outside [1, 2)"},
		{"rank equal to size", 3, func(t *testing.T, ctx context.Context, addr string) {
			sendTimes(ctx, addr, 1, sampleTimes(1), "h")
			sendTimes(ctx, addr, 3, sampleTimes(3), "h")
		}, "result record names rank 3, outside [1, 3)"},
		{"rank that wraps negative", 2, func(t *testing.T, ctx context.Context, addr string) {
			sendTimes(ctx, addr, -1, sampleTimes(1), "h")
		}, "result record names rank 4294967295, outside [1, 2)"},
		{"rank reported twice", 3, func(t *testing.T, ctx context.Context, addr string) {
			sendTimes(ctx, addr, 1, sampleTimes(1), "h")
			sendTimes(ctx, addr, 1, sampleTimes(1), "h")
		}, "rank 1 reported twice"},
		{"truncated record", 2, func(t *testing.T, ctx context.Context, addr string) {
			rawRecord(t, ctx, addr, []byte{0, 0, 0, 1, 0x3f})
		}, "read result record: unexpected EOF"},
		{"empty connection", 2, func(t *testing.T, ctx context.Context, addr string) {
			rawRecord(t, ctx, addr, nil)
		}, "read result record: EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Context(t, 10*time.Second)
			col := newTestCollector(t, tc.size)
			ch := gatherAsync(ctx, col, sampleTimes(0))
			tc.send(t, ctx, loopback(col))
			res := waitGather(t, ch)
			if res.err == nil || !strings.Contains(res.err.Error(), tc.want) {
				t.Fatalf("gather = %v, want an error containing %q", res.err, tc.want)
			}
			if ctx.Err() != nil {
				t.Fatalf("gather failed only when its context ended: %v", res.err)
			}
		})
	}
}

func TestCollectorMissingRanks(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		send []int
		want string
	}{
		{"one missing", 4, []int{1, 3}, "no results from ranks [2]"},
		{"all missing", 3, nil, "no results from ranks [1 2]"},
		{"many missing are clipped", 12, []int{5}, "no results from ranks [1 2 3 4 6 7 8 9] and 2 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const wait = 300 * time.Millisecond
			start := time.Now() // before the deadline is set: it is then at start+wait or later
			ctx, cancel := context.WithTimeout(testenv.Context(t, 10*time.Second), wait)
			defer cancel()
			col := newTestCollector(t, tc.size)
			ch := gatherAsync(ctx, col, sampleTimes(0))
			for _, r := range tc.send {
				if err := sendTimes(ctx, loopback(col), r, sampleTimes(r), "h"); err != nil {
					t.Fatalf("sendTimes from rank %d: %v", r, err)
				}
			}
			res := waitGather(t, ch)
			if res.err == nil || !strings.Contains(res.err.Error(), tc.want) || !errors.Is(res.err, context.DeadlineExceeded) {
				t.Fatalf("gather = %v, want a deadline error containing %q", res.err, tc.want)
			}
			if d := time.Since(start); d < wait || d > wait+5*time.Second {
				t.Errorf("gather failed after %v, want at its %v deadline", d, wait)
			}
		})
	}
}

func TestSplitComma(t *testing.T) {
	for in, want := range map[string]string{
		"": "[]", ",": "[]", "a": "[a]", "a,b": "[a b]", ",a,,b,": "[a b]",
		"node1:4000,127.0.0.1:4000": "[node1:4000 127.0.0.1:4000]",
	} {
		if got := fmt.Sprint(splitComma(in)); got != want {
			t.Errorf("splitComma(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestResult(t *testing.T) {
	out := &Outcome{Rank: 0, Size: 3, Gets: 3, Pipelined: true, Ranks: []Times{
		{0.001, 0.002, 0.030, 0.004, 0.0005},
		{0.003, 0.001, 0.010, 0.006, 0.0001},
		{0.002, 0.004, 0.020, 0.005, 0.0003},
	}}
	o := Options{CardSize: 64, Pattern: PatternAll, Timeout: time.Minute}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := Meta{Run: report.Run{Command: []string{"hpcbench", "wireup"}, Version: "v1.2.3", Hostnames: []string{"node1"},
		Env: map[string]string{"pmi": "fd"}}, Start: start, End: start.Add(time.Second)}
	r := Result(out, o, m)
	if err := r.Validate(); err != nil {
		t.Fatalf("Result does not validate: %v", err)
	}
	if r.Run.Benchmark != "wireup" || r.Run.Ranks != 3 || r.Run.Env["pmi"] != "fd" ||
		r.Run.Version != "v1.2.3" || fmt.Sprint(r.Run.Hostnames) != "[node1]" || !r.Run.Start.Equal(start) {
		t.Errorf("Run = %+v", r.Run)
	}
	if want := []report.Param{{Name: "card-size", Value: "64 B"}, {Name: "pattern", Value: "all"}, {Name: "gets per rank", Value: "3"}, {Name: "gets", Value: "pipelined"}}; !slices.Equal(r.Params, want) {
		t.Errorf("Params = %+v, want %+v", r.Params, want)
	}
	if len(r.Tables) != 1 || r.Tables[0].Name != "phases" {
		t.Fatalf("Tables = %+v, want one named phases", r.Tables)
	}
	rows := r.Tables[0].Rows
	wantLabels := []string{"init", "put", "barrier", "get", "finalize", "total"}
	if len(rows) != len(wantLabels) {
		t.Fatalf("%d rows, want %d", len(rows), len(wantLabels))
	}
	for i, row := range rows {
		if row.Labels[0] != wantLabels[i] {
			t.Errorf("row %d is %q, want %q", i, row.Labels[0], wantLabels[i])
		}
		samples := row.Samples["rank"]
		if len(samples) != out.Size {
			t.Fatalf("row %s: %d samples, want %d", wantLabels[i], len(samples), out.Size)
		}
		for rank, v := range samples {
			want := 0.0
			if i < len(phaseNames) {
				want = out.Ranks[rank][i]
			} else {
				for _, p := range out.Ranks[rank] {
					want += p
				}
			}
			if math.Abs(v-want) > 1e-12 {
				t.Errorf("row %s rank %d = %v, want %v", wantLabels[i], rank, v, want)
			}
		}
		s := report.Summarize(samples)
		if got := row.Metrics; len(got) != 3 || got[0] != s.Min || got[1] != s.Mean || got[2] != s.Max {
			t.Errorf("row %s metrics = %v, want min/mean/max %v %v %v", wantLabels[i], got, s.Min, s.Mean, s.Max)
		}
	}
	// The barrier row's figures, read off by hand.
	if b := rows[2].Metrics; b[0] != 0.010 || b[2] != 0.030 || math.Abs(b[1]-0.020) > 1e-15 {
		t.Errorf("barrier min/mean/max = %v, want 0.010/0.020/0.030", b)
	}
	var buf bytes.Buffer
	if err := report.WriteText(&buf, r); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	if !strings.Contains(buf.String(), "total") {
		t.Errorf("text report has no total row:\n%s", buf.String())
	}
}

func TestRunSingleton(t *testing.T) {
	for _, tc := range []struct {
		pattern  string
		cardSize int
	}{
		{PatternAll, DefaultCardSize},
		{PatternRing, 1},
		{PatternAll, 4096},         // segmented, as MPICH's put_ex would store it
		{PatternRing, MaxCardSize}, // the largest card: thousands of segments
	} {
		t.Run(tc.pattern+"-"+strconv.Itoa(tc.cardSize), func(t *testing.T) {
			var trace bytes.Buffer
			o := Options{CardSize: tc.cardSize, Pattern: tc.pattern, Timeout: 10 * time.Second, Getenv: noEnv, Trace: &trace}
			out, err := Run(testenv.Context(t, 20*time.Second), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.Rank != 0 || out.Size != 1 || !out.Singleton || out.Gets != 1 || len(out.Ranks) != 1 {
				t.Fatalf("Outcome = %+v, want rank 0 of 1, singleton, 1 get, 1 record", out)
			}
			for i, v := range out.Ranks[0] {
				if !(v >= 0) || v > 10 {
					t.Errorf("phase %s took %v s", phaseNames[i], v)
				}
			}
			if trace.Len() != 0 {
				t.Errorf("a singleton traced wire lines:\n%s", trace.String())
			}
			if r := Result(out, o, Meta{Run: report.Run{Env: map[string]string{"pmi": "singleton"}}}); r.Validate() != nil || len(r.Tables[0].Rows) != 6 {
				t.Errorf("Result of a singleton run: %v, %d rows", r.Validate(), len(r.Tables[0].Rows))
			}
		})
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	_, err := Run(testenv.Context(t, 10*time.Second), Options{CardSize: 0, Pattern: PatternAll, Timeout: time.Second, Getenv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "--card-size 0") {
		t.Fatalf("Run with card size 0 = %v, want the Validate error", err)
	}
}

func TestRunContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{CardSize: 8, Pattern: PatternAll, Timeout: time.Second, Getenv: noEnv})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a done context = %v, want context.Canceled", err)
	}
}

// TestRunJob runs a whole job in-process: a real pmi.Server and one Run per
// rank, each reaching the server through its socketpair as PMI_FD, so the
// results travel to rank 0's collector for real.
func TestRunJob(t *testing.T) {
	for _, tc := range []struct {
		pattern  string
		size     int
		cardSize int
		gets     int
	}{
		{PatternAll, 4, 64, 4},
		{PatternRing, 3, 2000, 1},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			ctx := testenv.Context(t, 20*time.Second)
			srv, err := pmi.NewServer(pmi.ServerConfig{Engine: pmi.EngineConfig{
				Size: tc.size, KVSName: "kvs_wireup_test", ProcessMapping: "(vector,(0,1," + strconv.Itoa(tc.size) + "))"}})
			if err != nil {
				t.Fatal(err)
			}
			envs := make([]map[string]string, tc.size)
			for r := range tc.size {
				fd, err := syscall.Dup(int(srv.ClientFile(r).Fd()))
				if err != nil {
					t.Fatal(err)
				}
				srv.CloseClientFile(r)
				envs[r] = map[string]string{"PMI_FD": strconv.Itoa(fd), "PMI_RANK": strconv.Itoa(r), "PMI_SIZE": strconv.Itoa(tc.size)}
			}
			srvDone := make(chan error, 1)
			go func() { srvDone <- srv.Run(ctx) }()

			outs := make([]*Outcome, tc.size)
			errs := make([]error, tc.size)
			var wg sync.WaitGroup
			for r := range tc.size {
				o := Options{CardSize: tc.cardSize, Pattern: tc.pattern, Timeout: 10 * time.Second,
					Getenv: func(k string) (string, bool) { v, ok := envs[r][k]; return v, ok }}
				wg.Go(func() { outs[r], errs[r] = Run(ctx, o) })
			}
			wg.Wait()
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			select {
			case err := <-srvDone:
				if err != nil {
					t.Fatalf("server: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("server did not return after every rank finalized")
			}
			for r, out := range outs {
				if out.Rank != r || out.Size != tc.size || out.Singleton || out.Gets != tc.gets {
					t.Errorf("rank %d: Outcome %+v, want size %d and %d gets", r, out, tc.size, tc.gets)
				}
				if (r == 0) != (out.Ranks != nil) {
					t.Errorf("rank %d: %d records, want them on rank 0 only", r, len(out.Ranks))
				}
			}
			for r, times := range outs[0].Ranks {
				for i, v := range times {
					if !(v >= 0) || v > 20 {
						t.Errorf("rank %d phase %s took %v s", r, phaseNames[i], v)
					}
				}
				if times[0] == 0 && times[3] == 0 {
					t.Errorf("rank %d sent no times: %v", r, times)
				}
			}
		})
	}
}

// TestResultHosts: the hosts the ranks reported become the run record's
// Hostnames (first appearance, rank order) and Hosts.
func TestResultHosts(t *testing.T) {
	out := &Outcome{Size: 4, Ranks: make([]Times, 4), Hosts: []string{"b", "a", "b", "c"}}
	r := Result(out, Options{CardSize: 1, Pattern: PatternRing}, Meta{Run: report.Run{Hostnames: []string{"b"}, Hosts: 1}})
	if r.Run.Hosts != 3 || fmt.Sprint(r.Run.Hostnames) != "[b a c]" {
		t.Errorf("hosts %d %q, want 3 [b a c]", r.Run.Hosts, r.Run.Hostnames)
	}
}

func TestDialOrder(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		host  string
		want  []string
	}{
		{[]string{"vm:5", "127.0.0.1:5"}, "vm", []string{"127.0.0.1:5", "vm:5"}},
		{[]string{"vm:5", "127.0.0.1:5"}, "node7", []string{"vm:5", "127.0.0.1:5"}},
		{[]string{"vm:5"}, "vm", []string{"vm:5"}},
		{[]string{"vm:5", "10.0.0.1:5", "[::1]:5"}, "vm", []string{"[::1]:5", "vm:5", "10.0.0.1:5"}},
		{[]string{"vm:5", "10.0.0.1:5"}, "vm", []string{"vm:5", "10.0.0.1:5"}},
		{[]string{"bad", "127.0.0.1:5"}, "bad", []string{"bad", "127.0.0.1:5"}},
	} {
		if got := dialOrder(tc.addrs, tc.host); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("dialOrder(%q, %q) = %q, want %q", tc.addrs, tc.host, got, tc.want)
		}
	}
}
