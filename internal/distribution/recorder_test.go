package distribution

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcbench/hpcbench/collectives"
	"github.com/hpcbench/hpcbench/internal/jobtest"
)

const ms = int64(time.Millisecond)

func TestParseSteady(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Steady
		err  string
	}{
		{"", Steady{10 * time.Second, 0.075}, ""},
		{"5s,5%", Steady{5 * time.Second, 0.05}, ""},
		{"500ms,10", Steady{500 * time.Millisecond, 0.10}, ""},
		{"5s", Steady{}, "want WINDOW,TOLERANCE"},
		{"x,5%", Steady{}, "window"},
		{"-1s,5%", Steady{}, "window"},
		{"5s,0%", Steady{}, "tolerance"},
		{"5s,100%", Steady{}, "tolerance"},
		{"5s,abc", Steady{}, "tolerance"},
	} {
		got, err := ParseSteady(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--until-steady") {
				t.Errorf("ParseSteady(%q) error %v, want one naming --until-steady and %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSteady(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	if _, err := New(time.Second, Steady{Window: time.Second, Tolerance: 0.1}); err == nil || !strings.Contains(err.Error(), "--interval") {
		t.Errorf("a window of one interval: %v, want an error naming --interval", err)
	}
	if _, err := New(time.Microsecond, Steady{}); err == nil || !strings.Contains(err.Error(), "--interval") {
		t.Errorf("a 1us interval: %v", err)
	}
}

// TestSeries: amounts land in the interval their operation ended in;
// idle intervals are zeros; the last, partial interval is kept.
func TestSeries(t *testing.T) {
	r, err := New(100*time.Millisecond, Steady{})
	if err != nil {
		t.Fatal(err)
	}
	r.Op(0, 10*ms, 1)
	r.Op(10*ms, 99*ms, 2)
	r.Op(99*ms, 100*ms, 4) // on the edge: the second interval
	r.Next(350*ms, 8)      // skips two idle intervals... and lands in the fourth
	r.Done(360 * ms)
	want := []float64{3, 4, 0, 8}
	if got := r.ownSeries(); !slices.Equal(got, want) {
		t.Fatalf("series %v, want %v", got, want)
	}
	if r.Total() != 15 || r.Lat.N() != 4 || r.Lat.Quantile(1) != 0.25 {
		t.Fatalf("total %g, ops %d, max %g", r.Total(), r.Lat.N(), r.Lat.Quantile(1))
	}
	r.Reset()
	if r.Total() != 0 || r.Lat.N() != 0 || len(r.ownSeries()) != 0 {
		t.Fatal("Reset left figures behind")
	}
}

// TestSteadyStops: a ramp is not steady; a plateau within the tolerance
// is, once the window is full of it; a noisy plateau never is.
func TestSteadyStops(t *testing.T) {
	s := Steady{Window: 300 * time.Millisecond, Tolerance: 0.05}
	run := func(rate func(i int) float64) (int64, bool) {
		r, err := New(100*time.Millisecond, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 100 { // 10 ms operations, 10 per interval
			if r.Op(int64(i)*10*ms, int64(i+1)*10*ms, rate(i)) {
				break
			}
		}
		return r.SteadyAt()
	}
	at, ok := run(func(i int) float64 {
		if i < 30 {
			return float64(i) // ramp for 3 intervals
		}
		return 100
	})
	if !ok || at != 600*ms { // plateau intervals 3, 4, 5 complete at 600 ms
		t.Errorf("ramp then plateau: steady %v at %d ms, want at 600 ms", ok, at/ms)
	}
	if _, ok := run(func(i int) float64 { return float64(100 + 50*((i/10)%2)) }); ok {
		t.Error("a plateau alternating by 50% per interval passed as steady")
	}
	if _, ok := run(func(int) float64 { return 0 }); ok {
		t.Error("an idle phase passed as steady")
	}
}

// TestHalve: past MaxIntervals the series merges in pairs and keeps every
// amount.
func TestHalve(t *testing.T) {
	r, err := New(time.Millisecond, Steady{Window: 10 * time.Millisecond, Tolerance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	n := 3*MaxIntervals + 7
	for i := range n {
		r.Op(int64(i)*ms, int64(i)*ms+ms/2, 1)
	}
	r.Done(int64(n) * ms)
	s := r.ownSeries()
	var sum float64
	for _, v := range s {
		sum += v
	}
	if sum != float64(n) || len(s) > MaxIntervals+1 || r.Interval() != 4*time.Millisecond {
		t.Fatalf("sum %g of %d, %d intervals of %v", sum, n, len(s), r.Interval())
	}
}

// TestReduce runs four ranks whose second interval differs, one of which
// doubled its interval, and checks the job's figures on rank 0.
func TestReduce(t *testing.T) {
	const n = 4
	var job *Job
	errs := jobtest.Run(t, n, nil, func(ctx context.Context, c *collectives.Comm) error {
		r, err := New(10*time.Millisecond, Steady{})
		if err != nil {
			return err
		}
		k := c.Rank()
		for i := range 3 + k { // rank k does 3+k ops of 10 ms and k+1 bytes each
			r.Next(int64(i+1)*10*ms, float64(k+1))
		}
		r.Done(int64(3+k)*10*ms + 5*ms)
		j, err := Reduce(ctx, c, r)
		if k == 0 {
			job = j
		} else if j != nil {
			t.Errorf("rank %d got the job's figures", k)
		}
		return err
	})
	jobtest.NoErrors(t, errs)
	if job.Lat.N() != 3+4+5+6 || job.End != 0.065 || len(job.Ranks) != n {
		t.Fatalf("ops %d end %g ranks %d", job.Lat.N(), job.End, len(job.Ranks))
	}
	// Interval i (10 ms each, ops end on the edges) holds what ranks did
	// in it: the op ending at (i+1)*10 ms lands in interval i+1.
	want := []float64{0, 10, 10, 10, 9, 7, 4}
	if !slices.Equal(job.Series, want) {
		t.Fatalf("series %v, want %v", job.Series, want)
	}
	for k, rk := range job.Ranks {
		if rk.Amount != float64((3+k)*(k+1)) || math.Abs(rk.Done-float64(3+k)*0.01-0.005) > 1e-12 || !math.IsNaN(rk.SteadyAt) {
			t.Errorf("rank %d: %+v", k, rk)
		}
	}
	lat := job.Latency([]string{"write"})
	if lat.Ops != 18 || math.Abs(lat.P50-0.01) > 0.01/64 || lat.Max != 0.01 {
		t.Errorf("latency %+v", lat)
	}
}

// TestReduceMixedIntervals: a rank whose long phase doubled its interval
// and one that did not reduce onto the longer interval, keeping every
// amount.
func TestReduceMixedIntervals(t *testing.T) {
	var job *Job
	errs := jobtest.Run(t, 2, nil, func(ctx context.Context, c *collectives.Comm) error {
		r, err := New(time.Millisecond, Steady{})
		if err != nil {
			return err
		}
		n := 10 // rank 0: 10 intervals of 1 ms
		if c.Rank() == 1 {
			n = MaxIntervals + 10 // rank 1: doubles to 2 ms
		}
		for i := range n {
			r.Next(int64(i)*ms+ms/2, 1)
		}
		r.Done(int64(n) * ms)
		j, err := Reduce(ctx, c, r)
		if c.Rank() == 0 {
			job = j
		}
		return err
	})
	jobtest.NoErrors(t, errs)
	var sum float64
	for _, v := range job.Series {
		sum += v
	}
	if job.Interval != 2*time.Millisecond || sum != float64(10+MaxIntervals+10) || len(job.Series) != (MaxIntervals+10)/2 {
		t.Fatalf("interval %v, %d intervals, sum %g", job.Interval, len(job.Series), sum)
	}
	if job.Series[0] != 4 || job.Series[6] != 2 { // both ranks' first 2 ms, then rank 1's alone
		t.Fatalf("series starts %v", job.Series[:8])
	}
}

// TestSampling: the first operations are all timed; then one in
// SampleBudget/mean of them, within [1, MaxEvery]; untimed ones still
// count in the series and the total.
func TestSampling(t *testing.T) {
	for _, tc := range []struct {
		op    int64 // ns per operation
		every int64
	}{
		{1000, 10},
		{int64(SampleBudget), 1},
		{3 * int64(SampleBudget), 1},
		{20, MaxEvery},
		{3000, 4},
	} {
		r, err := New(time.Second, Steady{})
		if err != nil {
			t.Fatal(err)
		}
		const n = 10000
		now := int64(0)
		for range n {
			if r.Due() {
				r.Op(now, now+tc.op, 1)
			} else {
				r.Skip(1)
			}
			now += tc.op
		}
		r.Done(now)
		// The skips are jittered around every-1: the count is near, not
		// exactly, one in every.
		wantTimed := float64(calibrate) + float64(n-calibrate)/float64(tc.every)
		if r.Every() != tc.every || math.Abs(float64(r.Lat.N())-wantTimed) > 0.1*(wantTimed-calibrate)+5 || r.Total() != n {
			t.Errorf("%d ns ops: every %d (want %d), timed %d (want about %.0f), total %g", tc.op, r.Every(), tc.every, r.Lat.N(), wantTimed, r.Total())
		}
		if got := r.Lat.Quantile(0.5); math.Abs(got-float64(tc.op)/1e9) > float64(tc.op)/1e9/64 {
			t.Errorf("%d ns ops: median %g", tc.op, got)
		}
	}
}

// BenchmarkSampled is what a loop that asks Due pays per operation, the
// clock reads of the timed ones included.
func BenchmarkSampled(b *testing.B) {
	r, err := New(DefaultInterval, Steady{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	for b.Loop() {
		if r.Due() {
			s := int64(time.Since(t0))
			r.Op(s, int64(time.Since(t0))+1000, 4096) // as if the operation took 1 us
		} else {
			r.Skip(4096)
		}
	}
}

// TestOnInterval: the hook hears the amount done once per new interval,
// not per operation.
func TestOnInterval(t *testing.T) {
	r, err := New(10*time.Millisecond, Steady{})
	if err != nil {
		t.Fatal(err)
	}
	var heard []float64
	r.OnInterval(func(done float64) { heard = append(heard, done) })
	for i := range 50 { // 50 ops of 1 ms: intervals end at ops 10, 20, 30, 40, 50
		r.Next(int64(i+1)*ms, 2)
	}
	if want := []float64{18, 38, 58, 78, 98}; !slices.Equal(heard, want) {
		t.Errorf("heard %v, want %v (the amount before the op that opened each interval)", heard, want)
	}
}

// TestResetUndoesHalving: a phase that outlasted MaxIntervals doubled the
// interval; the next phase starts again from the interval New was given.
func TestResetUndoesHalving(t *testing.T) {
	r, err := New(time.Millisecond, Steady{Window: 10 * time.Millisecond, Tolerance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxIntervals + 10 {
		r.Next(int64(i+1)*ms, 1)
	}
	if r.Interval() != 2*time.Millisecond {
		t.Fatalf("interval %v after a long phase, want 2ms", r.Interval())
	}
	r.Reset()
	if r.Interval() != time.Millisecond || r.k != 10 {
		t.Errorf("after Reset: interval %v, window of %d intervals; want 1ms and 10", r.Interval(), r.k)
	}
}

// TestSkipsJitter: the skips average every-1 and vary, so the timed
// operations do not fall in step with a periodic workload.
func TestSkipsJitter(t *testing.T) {
	r := &Recorder{every: 64, rng: 1}
	seen := map[int64]bool{}
	var sum int64
	const n = 20000
	for range n {
		s := r.skips()
		if s < 0 || s > 126 {
			t.Fatalf("skip %d outside [0, 126]", s)
		}
		seen[s] = true
		sum += s
	}
	if mean := float64(sum) / n; math.Abs(mean-63) > 2 || len(seen) < 100 {
		t.Errorf("skips: mean %.1f (want 63), %d distinct", mean, len(seen))
	}
}
