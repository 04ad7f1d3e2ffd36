package report

import (
	"fmt"
	"strings"
)

// pool is one side's archives of one benchmark with one set of parameters,
// their figures gathered per metric.
type pool struct {
	key       string // benchmark and parameters, see poolKey
	benchmark string
	params    []Param
	files     []string
	metrics   map[metricKey]*pooled
	order     []metricKey // first appearance
}

// metricKey names one metric of one table row.
type metricKey struct{ table, row, metric string }

// pooled is one metric's figures from every archive of a pool.
type pooled struct {
	unit, display string
	better        Better
	vals          []float64
	file          string   // the first archive that has the metric
	rowParts      []string // the row's "name=value" labels, see rowParts
}

// poolKey identifies a benchmark run with its parameters, in their order,
// leaving out the incidental ones.
func poolKey(r *Result) string {
	var b strings.Builder
	b.WriteString(r.Run.Benchmark)
	for _, p := range r.Params {
		if !p.Incidental {
			b.WriteString("\x00" + p.Name + "\x00" + p.Value)
		}
	}
	return b.String()
}

// poolSide gathers the archives of one side into pools, in order of first
// appearance.
func poolSide(in []CompareInput) ([]*pool, error) {
	var pools []*pool
	byKey := map[string]*pool{}
	for _, a := range in {
		k := poolKey(a.Result)
		p := byKey[k]
		if p == nil {
			p = &pool{key: k, benchmark: a.Result.Run.Benchmark, params: a.Result.Params, metrics: map[metricKey]*pooled{}}
			byKey[k] = p
			pools = append(pools, p)
		}
		p.files = append(p.files, a.File)
		if err := p.add(a.File, a.Result); err != nil {
			return nil, err
		}
	}
	return pools, nil
}

// add pools the figures of r, read from file.
func (p *pool) add(file string, r *Result) error {
	for ti := range r.Tables {
		t := &r.Tables[ti]
		if t.Detail() {
			continue
		}
		labels, metrics := t.split()
		users := map[string][]Column{} // metric columns by sample key
		for _, c := range metrics {
			users[c.sampleKey()] = append(users[c.sampleKey()], c)
		}
		for _, row := range t.Rows {
			parts := rowParts(labels, row.Labels)
			rk := strings.Join(parts, " ")
			done := map[string]bool{}
			for j, c := range metrics {
				key := c.sampleKey()
				if s := row.Samples[key]; len(s) > 0 {
					if done[key] {
						continue
					}
					done[key] = true
					name, better := sharedName(key, users[key], metrics)
					if err := p.put(file, metricKey{t.Name, rk, name}, c, better, s, parts); err != nil {
						return err
					}
					continue
				}
				if err := p.put(file, metricKey{t.Name, rk, c.Name}, c, c.Better, row.Metrics[j:j+1], parts); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// put appends vals to the metric k, whose column is c, of the row whose
// labels are parts.
func (p *pool) put(file string, k metricKey, c Column, better Better, vals []float64, parts []string) error {
	m := p.metrics[k]
	if m == nil {
		m = &pooled{unit: c.Unit, display: c.Display, better: better, file: file, rowParts: parts}
		p.metrics[k] = m
		p.order = append(p.order, k)
	}
	if err := m.agrees(file, k, c.Unit, better); err != nil {
		return err
	}
	m.vals = append(m.vals, vals...)
	return nil
}

// agrees checks that the metric k of file, in unit and with direction
// better, is the same metric as m: an error naming the file and the field
// if not.
func (m *pooled) agrees(file string, k metricKey, unit string, better Better) error {
	if m.unit != unit {
		return fmt.Errorf("%s: table %q column %q: unit %q, but %s has %q", file, k.table, k.metric, unit, m.file, m.unit)
	}
	if m.better != better {
		return fmt.Errorf("%s: table %q column %q: better %q, but %s has %q", file, k.table, k.metric, better, m.file, m.better)
	}
	return nil
}

// sharedName names the metric of the samples under key that the columns
// cols summarise: the column's own name when it is the only one, else the
// samples' own name ("rank" for the min, mean and max of per-rank times),
// or "min/mean/max of rank" when a metric column of the table, all, has
// that name. Its direction is the one direction the columns that have one
// agree on, or unknown when they disagree.
func sharedName(key string, cols, all []Column) (string, Better) {
	if len(cols) == 1 {
		return cols[0].Name, cols[0].Better
	}
	var better Better
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
		if c.Better != "" && better == "" {
			better = c.Better
		}
	}
	for _, c := range cols {
		if c.Better != "" && c.Better != better {
			better = ""
		}
	}
	for _, c := range all {
		if c.Name == key {
			return strings.Join(names, "/") + " of " + key, better
		}
	}
	return key, better
}

// repeatLabels are the names of the label columns that number repetitions
// of one measurement: IOR's "iter" and mdtest's "iteration" in their
// tables and the distribution tables. Compare pools the rows that differ
// only in them into one sample set, as benchstat pools the runs of a
// benchmark: IOR's "write" rows of iterations 0, 1 and 2 are three
// samples of one metric, not three metrics of one sample each.
var repeatLabels = map[string]bool{"iter": true, "iteration": true}

// rowParts returns a row's labels as "name=value" words, leaving out the
// repetition labels (repeatLabels); joined by spaces they are the row's
// key.
func rowParts(cols []Column, labels []string) []string {
	parts := make([]string, 0, len(cols))
	for i, c := range cols {
		if !repeatLabels[c.Name] {
			parts = append(parts, c.Name+"="+labels[i])
		}
	}
	return parts
}

// checkParams fails when a benchmark is on both sides but some run of it on
// one side has no run with the same parameters on the other: those runs
// measured different things. The error names the first parameter that
// differs and the files.
func checkParams(old, new []*pool) error {
	has := func(ps []*pool, key string) bool {
		for _, p := range ps {
			if p.key == key {
				return true
			}
		}
		return false
	}
	for _, op := range old {
		if has(new, op.key) {
			continue
		}
		for _, np := range new {
			if np.benchmark != op.benchmark || has(old, np.key) {
				continue
			}
			return fmt.Errorf("%s: %s, but %s has %s", np.files[0], paramDiff(np.params, op.params), op.files[0], paramDiff(op.params, np.params))
		}
	}
	return nil
}

// paramDiff describes the first parameter of a that b does not have with
// the same value: `param "xfer" = "1 MiB"`, or `no param "xfer"` when a
// lacks one b has.
func paramDiff(a, b []Param) string {
	a, b = measured(a), measured(b)
	bv := map[string]string{}
	for _, p := range b {
		bv[p.Name] = p.Value
	}
	for _, p := range a {
		if v, ok := bv[p.Name]; !ok || v != p.Value {
			return fmt.Sprintf("param %q = %q", p.Name, p.Value)
		}
	}
	av := map[string]bool{}
	for _, p := range a {
		av[p.Name] = true
	}
	for _, p := range b {
		if !av[p.Name] {
			return fmt.Sprintf("no param %q", p.Name)
		}
	}
	return "params in another order"
}

// measured returns the parameters of ps that are not Incidental.
func measured(ps []Param) []Param {
	var out []Param
	for _, p := range ps {
		if !p.Incidental {
			out = append(out, p)
		}
	}
	return out
}

// checkCommon fails when no benchmark is on both sides: nothing would be
// compared, and a gate that compares nothing must not pass.
func checkCommon(old, new []*pool) error {
	for _, op := range old {
		for _, np := range new {
			if op.benchmark == np.benchmark {
				return nil
			}
		}
	}
	return fmt.Errorf("%s: benchmark %q, but no old archive has it (%s has %q): nothing to compare",
		new[0].files[0], new[0].benchmark, old[0].files[0], old[0].benchmark)
}
