package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSeconds: the clock is the wall clock since 2025, to well under a
// microsecond, and it does not go back between two readings.
func TestSeconds(t *testing.T) {
	a := Seconds()
	want := float64(time.Now().Sub(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))) / 1e9
	if d := want - a; d < 0 || d > 1 {
		t.Errorf("Seconds() = %f, want about %f", a, want)
	}
	if b := Seconds(); b < a {
		t.Errorf("clock went back: %f then %f", a, b)
	}
	if ulp := a * 0x1p-52; ulp > 1e-7 {
		t.Errorf("a reading keeps only %g s of precision", ulp)
	}
}

// TestSleep: a sleep ends after d, or at once for d <= 0, or when its
// context ends, with the context's error.
func TestSleep(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      time.Duration
		cancel bool
		want   error
	}{
		{"zero", 0, false, nil},
		{"negative", -time.Second, true, nil},
		{"short", 10 * time.Millisecond, false, nil},
		{"cancelled", time.Hour, true, context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			if c.cancel {
				cancel()
			}
			defer cancel()
			start := time.Now()
			err := Sleep(ctx, c.d)
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("Sleep(%v) = %v, want %v", c.d, err, c.want)
			}
			if c.want == nil && c.d > 0 && time.Since(start) < c.d {
				t.Errorf("Sleep(%v) returned after %v", c.d, time.Since(start))
			}
		})
	}
}

// TestEpoch: the epoch constant is 2025-01-01 UTC.
func TestEpoch(t *testing.T) {
	if want := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(); epochUnixNano != want {
		t.Errorf("epochUnixNano = %d, want %d", epochUnixNano, want)
	}
}

// BenchmarkSeconds: a reading costs one clock read.
func BenchmarkSeconds(b *testing.B) {
	var s float64
	for b.Loop() {
		s += Seconds()
	}
	_ = s
}

// TestStartBarrier: on the wall clock the barrier runs twice with the
// settling spin between; on a test's clock once; a failed first barrier
// ends it with that error.
func TestStartBarrier(t *testing.T) {
	boom := errors.New("rank 1 is gone")
	for _, tc := range []struct {
		wall  bool
		fail  error
		calls int
		spun  bool
	}{
		{true, nil, 2, true},
		{false, nil, 1, false},
		{true, boom, 1, false},
	} {
		calls := 0
		barrier := func(context.Context) error { calls++; return tc.fail }
		start := time.Now()
		err := StartBarrier(context.Background(), barrier, tc.wall)
		if !errors.Is(err, tc.fail) || calls != tc.calls {
			t.Errorf("wall %v, first barrier's error %v: %v after %d barrier(s), want %v after %d", tc.wall, tc.fail, err, calls, tc.fail, tc.calls)
		}
		if tc.spun && time.Since(start) < SettleTime {
			t.Errorf("wall %v: returned after %v, want SettleTime (%v) or more", tc.wall, time.Since(start), SettleTime)
		}
	}
}
