package report

import (
	"fmt"
	"math"
)

// Validate checks that r is a result the writers can render and ReadJSON
// would accept: a known schema (or none), a benchmark name, non-negative
// counts, and tables whose columns are well formed and whose rows fit them.
// Every writer calls it first, so a malformed result fails with an error
// naming the table, row or column rather than rendering garbage.
func (r *Result) Validate() error {
	if r == nil {
		return fmt.Errorf("report: invalid result: nil")
	}
	if r.Schema != "" && r.Schema != Schema {
		return fmt.Errorf("report: unsupported schema %q, want %s", r.Schema, Schema)
	}
	if r.Run.Benchmark == "" {
		return fmt.Errorf("report: invalid result: run has no benchmark name")
	}
	if r.Run.Ranks < 0 || r.Run.Hosts < 0 {
		return fmt.Errorf("report: invalid result: negative count: %d ranks, %d hosts", r.Run.Ranks, r.Run.Hosts)
	}
	for i, p := range r.Params {
		if p.Name == "" {
			return fmt.Errorf("report: invalid result: param %d has no name", i)
		}
	}
	seen := make(map[string]bool, len(r.Tables))
	for i := range r.Tables {
		t := &r.Tables[i]
		if t.Name == "" {
			return fmt.Errorf("report: invalid result: table %d has no name", i)
		}
		if seen[t.Name] {
			return fmt.Errorf("report: invalid result: two tables named %q", t.Name)
		}
		seen[t.Name] = true
		if err := t.validate(); err != nil {
			return fmt.Errorf("report: invalid result: table %q: %w", t.Name, err)
		}
	}
	return nil
}

// validate checks t's columns and rows.
func (t *Table) validate() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("no columns")
	}
	names := make(map[string]bool, len(t.Columns))
	sources := make(map[string]bool, len(t.Columns))
	for i, c := range t.Columns {
		if err := c.validate(); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
		if names[c.Name] {
			return fmt.Errorf("two columns named %q", c.Name)
		}
		names[c.Name] = true
		if c.Kind == KindMetric {
			sources[c.sampleKey()] = true
		}
	}
	labels, metrics := t.split()
	for i, row := range t.Rows {
		if len(row.Labels) != len(labels) {
			return fmt.Errorf("row %d: %d labels for %d label columns", i, len(row.Labels), len(labels))
		}
		if len(row.Metrics) != len(metrics) {
			return fmt.Errorf("row %d: %d metrics for %d metric columns", i, len(row.Metrics), len(metrics))
		}
		for j, v := range row.Metrics {
			if math.IsInf(v, 0) {
				return fmt.Errorf("row %d: column %q: infinite value (use NaN for not measured)", i, metrics[j].Name)
			}
		}
		for key, vals := range row.Samples {
			if !sources[key] {
				return fmt.Errorf("row %d: samples %q belong to no metric column (want a column's name or source)", i, key)
			}
			for _, v := range vals {
				if math.IsInf(v, 0) {
					return fmt.Errorf("row %d: samples %q: infinite value", i, key)
				}
			}
		}
	}
	return nil
}

// validate checks one column's own fields.
func (c Column) validate() error {
	if c.Name == "" {
		return fmt.Errorf("no name")
	}
	switch c.Kind {
	case KindLabel:
		if c.Unit != "" || c.Display != "" || c.Better != "" || c.Source != "" {
			return fmt.Errorf("label column %q has a unit, display, better or source; those are for metrics", c.Name)
		}
		return nil
	case KindMetric:
	default:
		return fmt.Errorf("column %q: unknown kind %q, want %q or %q", c.Name, c.Kind, KindLabel, KindMetric)
	}
	switch c.Better {
	case "", BetterLower, BetterHigher:
	default:
		return fmt.Errorf("column %q: unknown better %q, want %q, %q or empty", c.Name, c.Better, BetterLower, BetterHigher)
	}
	if _, ok := displayScale(c.Unit, c.Display); !ok {
		return fmt.Errorf("column %q: cannot display unit %q as %q", c.Name, c.Unit, c.Display)
	}
	return nil
}
