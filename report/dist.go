package report

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// The distribution tables every measuring engine adds to its Result
// (ior, mdtest, coll): per-operation latency percentiles, throughput per
// interval, and per-rank and per-host figures naming the straggler. The
// engines record with internal/distribution and build the tables here, so every
// benchmark's tables have the same columns and the same notes.

// Latency is one row of a latency table: the percentiles of every
// operation's duration in a phase, over every rank, in seconds.
type Latency struct {
	Labels             []string
	Ops                float64 // operations timed
	P50, P90, P99, Max float64
}

// LatencyTable builds the table of per-operation latency percentiles:
// the label columns, then ops and p50, p90, p99 and max in seconds (shown
// in microseconds).
func LatencyTable(name string, labels []Column, rows []Latency) Table {
	t := Table{Name: name, Dist: DistLatency, Columns: append(append([]Column(nil), labels...),
		Column{Name: "ops", Kind: KindMetric},
		latencyColumn("p50"), latencyColumn("p90"), latencyColumn("p99"), latencyColumn("max"))}
	for _, r := range rows {
		t.Rows = append(t.Rows, Row{Labels: r.Labels, Metrics: []float64{r.Ops, r.P50, r.P90, r.P99, r.Max}})
	}
	return t
}

func latencyColumn(name string) Column {
	return Column{Name: name, Kind: KindMetric, Unit: "s", Display: "us", Better: BetterLower}
}

// TimeSeries is one phase's amount done per interval over the job.
type TimeSeries struct {
	Labels   []string
	Interval float64   // seconds
	Amount   []float64 // per interval, in the rate column's Unit times seconds times Scale
	End      float64   // seconds from the phase's start to its last rank's end
}

// SeriesTable builds a time-series table as report/plot reads them: the
// label columns, "elapsed" (seconds from the phase's start to the end of
// the interval), then rate, the throughput over the interval (a
// higher-is-better column such as "bw" in MiB/s), which is the interval's
// amount divided by scale and by the interval's length. The last interval
// of a phase ends at its End and may be shorter; one shorter than half an
// interval is merged into the interval before it, whose rate is then over
// both, so that no row's rate is over a window too short to mean anything
// (an operation that took a whole interval and ended 2 ms into the last
// one would make that 2 ms look 50 times as fast).
func SeriesTable(name string, labels []Column, rate Column, scale float64, series []TimeSeries) Table {
	rate.Kind, rate.Better = KindMetric, BetterHigher
	t := Table{Name: name, Dist: DistSeries, Columns: append(append([]Column(nil), labels...),
		Column{Name: "elapsed", Kind: KindMetric, Unit: "s"}, rate)}
	for _, s := range series {
		n := len(s.Amount)
		if tail := s.End - float64(n-1)*s.Interval; n >= 2 && tail > 0 && tail < s.Interval/2*(1-1e-9) {
			n-- // a short tail: its amount joins interval n-1, which ends at End
		}
		for i := range n {
			a := s.Amount[i]
			from, to := float64(i)*s.Interval, float64(i+1)*s.Interval
			if i == n-1 {
				a = sum(s.Amount[i:])
				if s.End > from {
					to = min(float64(len(s.Amount))*s.Interval, s.End)
				}
			}
			r := math.NaN()
			if to > from {
				r = a / scale / (to - from)
			}
			t.Rows = append(t.Rows, Row{Labels: s.Labels, Metrics: []float64{to, r}})
		}
	}
	return t
}

// sum returns the sum of vs.
func sum(vs []float64) float64 {
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s
}

// RankSet is one phase's figures per rank.
type RankSet struct {
	Labels []string
	// Name is the phase as the notes name it ("write, iteration 0").
	Name   string
	Hosts  []string  // host of every rank
	Amount []float64 // done by every rank, in the amount column's Unit
	Done   []float64 // seconds from the phase's start to every rank's end
	// Unshown marks a phase the views leave out (mdtest's Directory
	// read): its rows stay in the archive, but no note names it.
	Unshown bool
}

// RankUnits names what a phase's amounts and rates are.
type RankUnits struct {
	Amount Column  // "bytes" in B shown in MiB, "items" with no unit
	Rate   Column  // "bw" in MiB/s, "rate" in ops/s
	Scale  float64 // Amount's units per Rate's amount (1<<20 for bytes to MiB)
}

// RankTables builds the per-rank table (labels, rank, host, amount,
// done, rate) and the per-host table (labels, host, ranks, amount,
// first-done, last-done, and rate: the host's amount over its last-done),
// and notes under the per-rank table naming, for each set of more than
// one rank whose slowest rank lags the fastest by StragglerLag or more,
// the slowest rank and host against the fastest.
func RankTables(ranksName, hostsName string, labels []Column, u RankUnits, sets []RankSet) (ranks, hosts Table) {
	amount, rate := u.Amount, u.Rate
	amount.Kind, rate.Kind, rate.Better = KindMetric, KindMetric, BetterHigher
	done := Column{Name: "done", Kind: KindMetric, Unit: "s", Better: BetterLower}
	ranks = Table{Name: ranksName, Dist: DistRanks, Columns: append(append([]Column(nil), labels...),
		Column{Name: "rank", Kind: KindLabel}, Column{Name: "host", Kind: KindLabel}, amount, done, rate)}
	hosts = Table{Name: hostsName, Dist: DistHosts, Columns: append(append([]Column(nil), labels...),
		Column{Name: "host", Kind: KindLabel}, Column{Name: "ranks", Kind: KindMetric}, amount,
		Column{Name: "first-done", Kind: KindMetric, Unit: "s", Better: BetterLower},
		Column{Name: "last-done", Kind: KindMetric, Unit: "s", Better: BetterLower}, rate)}
	for _, s := range sets {
		type agg struct {
			n                 int
			amount, first, at float64
			busy              int     // ranks that did something
			busyAt            float64 // the last of them to end
		}
		var order []string
		by := map[string]*agg{}
		for i := range s.Done {
			h := s.Hosts[i]
			ranks.Rows = append(ranks.Rows, Row{Labels: append(append([]string(nil), s.Labels...), strconv.Itoa(i), h),
				Metrics: []float64{s.Amount[i], s.Done[i], perSecond(s.Amount[i]/u.Scale, s.Done[i])}})
			a := by[h]
			if a == nil {
				a = &agg{first: math.Inf(1)}
				by[h] = a
				order = append(order, h)
			}
			a.n++
			a.amount += s.Amount[i]
			a.first, a.at = min(a.first, s.Done[i]), max(a.at, s.Done[i])
			if s.Amount[i] > 0 {
				a.busy++
				a.busyAt = max(a.busyAt, s.Done[i])
			}
		}
		for _, h := range order {
			a := by[h]
			hosts.Rows = append(hosts.Rows, Row{Labels: append(append([]string(nil), s.Labels...), h),
				Metrics: []float64{float64(a.n), a.amount, a.first, a.at, perSecond(a.amount/u.Scale, a.at)}})
		}
		var busy []string // the hosts where something was done, for the note
		for _, h := range order {
			if by[h].busy > 0 {
				busy = append(busy, h)
			}
		}
		if s.Unshown {
			continue
		}
		if n := stragglerNote(s, busy, func(h string) float64 { return by[h].busyAt }); n != "" {
			ranks.Stragglers = append(ranks.Stragglers, n)
		}
	}
	return ranks, hosts
}

// perSecond returns amount/seconds, NaN when no time passed.
func perSecond(amount, seconds float64) float64 {
	if !(seconds > 0) {
		return math.NaN()
	}
	return amount / seconds
}

// StragglerLag is how much later than the fastest rank the slowest must
// end a phase, as a fraction of the fastest's time, and StragglerMinLag
// by how much at least, to be named a straggler (Table.Stragglers): a
// lag of a microsecond on a phase of five is noise, not news.
const (
	StragglerLag    = 0.10
	StragglerMinLag = 0.1 // seconds
)

// Stragglers returns every straggler line of r's tables, in table order:
// what a run says on stderr after its views.
func Stragglers(r *Result) []string {
	var out []string
	for _, t := range r.Tables {
		out = append(out, t.Stragglers...)
	}
	return out
}

// stragglerNote names the slowest rank of s against the fastest and, on
// more than one host, the slowest host against the fastest, when the
// slowest rank lags by StragglerLag and StragglerMinLag or more; else it
// returns "". Only
// ranks that did something count.
func stragglerNote(s RankSet, hosts []string, last func(string) float64) string {
	slow, fast, busy := -1, -1, 0
	for i, d := range s.Done {
		if !(s.Amount[i] > 0) {
			continue // a rank with nothing to do (mdtest's tree on rank 0 only) is no yardstick
		}
		busy++
		if slow < 0 || d > s.Done[slow] {
			slow = i
		}
		if fast < 0 || d < s.Done[fast] {
			fast = i
		}
	}
	if busy < 2 {
		return ""
	}
	if lag := s.Done[slow] - s.Done[fast]; !(lag >= StragglerLag*s.Done[fast]) || !(lag >= StragglerMinLag) {
		return ""
	}
	n := fmt.Sprintf("%s: straggler rank %d on %s, done at %s, %s after the fastest, rank %d on %s at %s",
		s.Name, slow, s.Hosts[slow], seconds(s.Done[slow]), lag(s.Done[slow], s.Done[fast]), fast, s.Hosts[fast], seconds(s.Done[fast]))
	if len(hosts) > 1 {
		sh, fh := hosts[0], hosts[0]
		for _, h := range hosts {
			if last(h) > last(sh) {
				sh = h
			}
			if last(h) < last(fh) {
				fh = h
			}
		}
		n += fmt.Sprintf("; slowest host %s, last done at %s, %s after host %s", sh, seconds(last(sh)), lag(last(sh), last(fh)), fh)
	}
	return n + "."
}

// lag says how much later slow is than fast, in time and, when fast took
// a millisecond or more, per cent.
func lag(slow, fast float64) string {
	if fast >= 1e-3 { // a percentage of microseconds says nothing
		return fmt.Sprintf("%s (%.0f%%)", seconds(slow-fast), (slow-fast)/fast*100)
	}
	return seconds(slow - fast)
}

// seconds formats a duration in seconds for a note, with 3 significant
// figures in s, ms or us.
func seconds(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64) + " s"
	case a >= 1e-3:
		return strconv.FormatFloat(v*1e3, 'f', 3, 64) + " ms"
	default:
		return strconv.FormatFloat(v*1e6, 'f', 1, 64) + " us"
	}
}

// writeNotes writes every note of r's tables, in table order, under a
// "Notes:" heading after a blank line, or nothing when there are none:
// the trailer of the benchmarks' own human layouts (IOR's, mdtest's,
// IMB's), which stay byte for byte the C tools' when nothing needs a note.
func writeNotes(b *bytes.Buffer, rs ...*Result) {
	first := true
	for _, r := range rs {
		for i := range r.Tables {
			for _, n := range r.Tables[i].Notes {
				if first {
					b.WriteString("\nNotes:\n")
					first = false
				}
				b.WriteString(printable(n) + "\n")
			}
		}
	}
}
