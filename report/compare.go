package report

import (
	"fmt"
	"math"
)

// CompareInput is one archive on one side of a comparison: the file it was
// read from (named in errors and in the output) and its Result.
type CompareInput struct {
	File   string
	Result *Result
}

// CompareOptions sets the statistics of a comparison.
type CompareOptions struct {
	// Alpha is the significance level: a change is significant when the
	// Mann–Whitney U test's p-value is below it. In (0, 1).
	Alpha float64
	// Threshold is the smallest relative change of the median, as a
	// fraction (0.05 for 5%), by which a significant regression fails the
	// gate. At least 0.
	Threshold float64
}

// Verdict says what a comparison of one metric found.
type Verdict string

// The verdicts.
const (
	VerdictImprovement Verdict = "improvement"     // significant, in the Better direction
	VerdictRegression  Verdict = "regression"      // significant, against the Better direction
	VerdictChanged     Verdict = "changed"         // significant, but which way is better is unknown
	VerdictNoise       Verdict = "~"               // not significant at Alpha
	VerdictTooFew      Verdict = "too few samples" // no difference could be significant at these sizes
	VerdictOldOnly     Verdict = "old only"        // the new side does not have the metric
	VerdictNewOnly     Verdict = "new only"        // the old side does not have the metric
)

// Comparison is what Compare found: the settings it used and, per
// benchmark and parameters, a MetricDelta for every metric of every row.
type Comparison struct {
	Alpha      float64 `json:"alpha"`
	Threshold  float64 `json:"threshold"`
	Confidence float64 `json:"confidence"`
	// MinSamples is the number of samples a side below which no change can
	// be significant at Alpha (0 when 50 a side are not enough).
	MinSamples int            `json:"min_samples"`
	Groups     []CompareGroup `json:"groups"`
}

// CompareGroup is one benchmark run with one set of parameters, pooled over
// the archives of each side that have it. Old or New is empty for a group
// only one side has.
type CompareGroup struct {
	Benchmark string        `json:"benchmark"`
	Params    []Param       `json:"params,omitempty"`
	Old       []string      `json:"old"`
	New       []string      `json:"new"`
	Metrics   []MetricDelta `json:"metrics"`
}

// MetricDelta compares one metric of one table row. Old or New is nil for a
// metric one side does not have. Delta and its interval are relative to
// the old center (0.2 for 20% more); NaN when they cannot be computed.
type MetricDelta struct {
	Table   string
	Row     string // the row's labels, "name=value" separated by spaces
	Metric  string // the column's name, or "a/b/c of SOURCE" for shared samples
	Unit    string
	Display string
	Better  Better
	Old     *SideStats
	New     *SideStats
	Delta   float64
	DeltaLo float64
	DeltaHi float64
	P       float64 // the U test's p-value; NaN for a metric on one side
	Verdict Verdict
	// Fails is true for a regression beyond the threshold, and for a
	// metric with a known direction that the new side lacks: the gate
	// fails.
	Fails bool
	// rowParts are Row's "name=value" words, and allSame is true when
	// every figure of both sides is the same: for the human view.
	rowParts []string
	allSame  bool
}

// Failures returns the metrics that fail the gate.
func (c *Comparison) Failures() []MetricDelta {
	var out []MetricDelta
	for _, g := range c.Groups {
		for _, m := range g.Metrics {
			if m.Fails {
				out = append(out, m)
			}
		}
	}
	return out
}

// Compare pools the archives of each side by benchmark and parameters and
// compares every metric of every matching table row, old against new.
// Rows match by table name and labels, leaving out the labels that number
// repetitions (IOR's "iter", mdtest's "iteration"): the rows of one
// table that differ only in those pool into one, as benchstat pools a
// benchmark's runs. Samples are a row's Samples for the metric's column
// (several columns sharing one Source are compared once, as one set of
// figures named after the Source, or "a/b/c of SOURCE" when a column has
// that name) or, in a row that has no samples, the metric's value, one per
// row. A group, row or metric that only one side has is listed as such.
//
// A benchmark on both sides whose runs on one side have no match with the
// same parameters on the other, or a metric whose unit or direction
// differs between archives, is an error naming the file and the field:
// such runs are not comparable.
//
// Each side is summarised by its median and the median's confidence
// interval; the delta is the relative change of the median, its interval
// the range of ratios both intervals allow (conservative: wider than a
// direct interval of the ratio would be).
func Compare(oldSide, newSide []CompareInput, opt CompareOptions) (*Comparison, error) {
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		return nil, fmt.Errorf("alpha %v: want a number in (0, 1)", opt.Alpha)
	}
	if !(opt.Threshold >= 0) || math.IsInf(opt.Threshold, 0) {
		return nil, fmt.Errorf("threshold %v: want a finite fraction >= 0", opt.Threshold)
	}
	if len(oldSide) == 0 || len(newSide) == 0 {
		return nil, fmt.Errorf("want at least one archive on each side, got %d old and %d new", len(oldSide), len(newSide))
	}
	oldPools, err := poolSide(oldSide)
	if err != nil {
		return nil, err
	}
	newPools, err := poolSide(newSide)
	if err != nil {
		return nil, err
	}
	if err := checkParams(oldPools, newPools); err != nil {
		return nil, err
	}
	if err := checkCommon(oldPools, newPools); err != nil {
		return nil, err
	}
	st := newStatTest(opt.Alpha)
	c := &Comparison{Alpha: opt.Alpha, Threshold: opt.Threshold, Confidence: compareConfidence, MinSamples: st.minSamples()}
	newByKey := make(map[string]*pool, len(newPools))
	for _, p := range newPools {
		newByKey[p.key] = p
	}
	matched := make(map[string]bool)
	for _, op := range oldPools {
		np := newByKey[op.key]
		if np != nil {
			matched[op.key] = true
		}
		g, err := compareGroup(op, np, st, opt.Threshold)
		if err != nil {
			return nil, err
		}
		c.Groups = append(c.Groups, g)
	}
	for _, np := range newPools {
		if !matched[np.key] {
			g, err := compareGroup(nil, np, st, opt.Threshold)
			if err != nil {
				return nil, err
			}
			c.Groups = append(c.Groups, g)
		}
	}
	return c, nil
}

// compareGroup compares the pools op and np of one group; either may be nil.
func compareGroup(op, np *pool, st statTest, threshold float64) (CompareGroup, error) {
	var g CompareGroup
	keys := []metricKey{}
	seen := map[metricKey]bool{}
	for _, p := range []*pool{op, np} {
		if p == nil {
			continue
		}
		g.Benchmark, g.Params = p.benchmark, p.params
		for _, k := range p.order {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if op != nil {
		g.Old = op.files
	}
	if np != nil {
		g.New = np.files
	}
	g.Old, g.New = nonNil(g.Old), nonNil(g.New)
	for _, k := range keys {
		var o, n *pooled
		if op != nil {
			o = op.metrics[k]
		}
		if np != nil {
			n = np.metrics[k]
		}
		if o != nil && n != nil {
			if err := sameMetric(k, o, n); err != nil {
				return g, err
			}
		}
		if m, ok := compareMetric(k, o, n, st, threshold); ok {
			g.Metrics = append(g.Metrics, m)
		}
	}
	return g, nil
}

// nonNil returns s, or an empty slice for nil (a JSON list, not null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// compareMetric compares one metric's pooled figures; ok is false when
// neither side measured anything (every figure NaN).
func compareMetric(k metricKey, o, n *pooled, st statTest, threshold float64) (MetricDelta, bool) {
	nan := math.NaN()
	m := MetricDelta{Table: k.table, Row: k.row, Metric: k.metric, Delta: nan, DeltaLo: nan, DeltaHi: nan, P: nan}
	for _, p := range []*pooled{o, n} {
		if p != nil {
			m.Unit, m.Display, m.Better, m.rowParts = p.unit, p.display, p.better, p.rowParts
		}
	}
	var oldVals, newVals []float64
	if o != nil {
		oldVals = o.vals
	}
	if n != nil {
		newVals = n.vals
	}
	oldS, newS := st.sample(oldVals), st.sample(newVals)
	switch {
	case len(oldS.Values) == 0 && len(newS.Values) == 0:
		return m, false
	case len(newS.Values) == 0:
		s := st.summary(oldS)
		m.Old, m.Verdict = &s, VerdictOldOnly
		// A metric the new runs no longer report (a benchmark dropped
		// from the suite, a phase that stopped running) cannot pass a
		// gate that would fail it had it got slower.
		m.Fails = m.Better != ""
		return m, true
	case len(oldS.Values) == 0:
		s := st.summary(newS)
		m.New, m.Verdict = &s, VerdictNewOnly
		return m, true
	}
	so, sn := st.summary(oldS), st.summary(newS)
	m.Old, m.New = &so, &sn
	m.Delta = relChange(so.Center, sn.Center)
	if finite(so.Lo, so.Hi, sn.Lo, sn.Hi) && so.Lo > 0 && sn.Lo >= 0 {
		// Every ratio of a new center to an old one that both intervals
		// allow: a conservative interval for the change.
		m.DeltaLo, m.DeltaHi = sn.Lo/so.Hi-1, sn.Hi/so.Lo-1
	}
	m.P = st.pValue(oldS, newS)
	m.allSame = allEqual(oldS.Values, newS.Values)
	switch {
	case !st.decidable(len(oldS.Values), len(newS.Values)):
		m.Verdict = VerdictTooFew
	case !(m.P < st.thresholds.CompareAlpha):
		m.Verdict = VerdictNoise
	case m.Better == "":
		m.Verdict = VerdictChanged
	case (m.Better == BetterLower) == (sn.Center > so.Center):
		m.Verdict = VerdictRegression
		m.Fails = math.IsNaN(m.Delta) || math.Abs(m.Delta) > threshold
	default:
		m.Verdict = VerdictImprovement
	}
	return m, true
}

// relChange returns to/from - 1, 0 when they are equal, NaN when from is 0.
func relChange(from, to float64) float64 {
	switch {
	case from == to:
		return 0
	case from == 0:
		return math.NaN()
	}
	return to/from - 1
}

// finite reports whether every value is neither infinite nor NaN.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

// sameMetric checks that one metric means the same on both sides.
func sameMetric(k metricKey, o, n *pooled) error {
	return o.agrees(n.file, k, n.unit, n.better)
}
