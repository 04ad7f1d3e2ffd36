package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Validate checks that r is a result the writers can render and ReadJSON
// would accept: a known schema (or none), a benchmark name, non-negative
// counts, and tables whose columns are well formed and whose rows fit them.
// Every writer calls it first, so a malformed result fails with an error
// naming the field at fault by its JSON path (tables[1].rows[0].metrics)
// rather than rendering garbage.
func (r *Result) Validate() error {
	if r == nil {
		return fmt.Errorf("report: invalid result: nil")
	}
	if r.Schema != "" && r.Schema != Schema {
		return fmt.Errorf("report: unsupported schema %q, want %s", r.Schema, Schema)
	}
	if r.Run.Benchmark == "" {
		return &fieldError{"run.benchmark", "empty, want the name of the benchmark that ran"}
	}
	if r.Run.Ranks < 0 {
		return &fieldError{"run.ranks", fmt.Sprintf("%d, want 0 or more", r.Run.Ranks)}
	}
	if r.Run.Hosts < 0 {
		return &fieldError{"run.hosts", fmt.Sprintf("%d, want 0 or more", r.Run.Hosts)}
	}
	for i, p := range r.Params {
		if p.Name == "" {
			return &fieldError{pathKey(pathIndex("params", i), "name"), "empty, want the option's name"}
		}
	}
	seen := make(map[string]int, len(r.Tables))
	for i := range r.Tables {
		t := &r.Tables[i]
		path := pathIndex("tables", i)
		if t.Name == "" {
			return &fieldError{pathKey(path, "name"), "empty, want the table's name"}
		}
		if j, ok := seen[t.Name]; ok {
			return &fieldError{pathKey(path, "name"), fmt.Sprintf("%q again (%s has it), want each table's own name", t.Name, pathIndex("tables", j))}
		}
		seen[t.Name] = i
		if err := t.validate(path); err != nil {
			return err
		}
	}
	return nil
}

// validate checks t's columns and rows; path is t's own.
func (t *Table) validate(path string) error {
	in := fmt.Sprintf(" (table %q)", t.Name)
	if len(t.Columns) == 0 {
		return &fieldError{pathKey(path, "columns"), "none, want at least one column" + in}
	}
	names := make(map[string]int, len(t.Columns))
	sources := make(map[string]bool, len(t.Columns))
	for i, c := range t.Columns {
		cp := pathIndex(pathKey(path, "columns"), i)
		if err := c.validate(cp); err != nil {
			return err
		}
		if j, ok := names[c.Name]; ok {
			return &fieldError{pathKey(cp, "name"), fmt.Sprintf("%q again (column %d has it), want each column's own name%s", c.Name, j, in)}
		}
		names[c.Name] = i
		if c.Kind == KindMetric {
			sources[c.sampleKey()] = true
		}
	}
	labels, metrics := t.split()
	for i, row := range t.Rows {
		rp := pathIndex(pathKey(path, "rows"), i)
		if len(row.Labels) != len(labels) {
			return &fieldError{pathKey(rp, "labels"), fmt.Sprintf("%s for %d label columns%s", values(len(row.Labels)), len(labels), in)}
		}
		if len(row.Metrics) != len(metrics) {
			return &fieldError{pathKey(rp, "metrics"), fmt.Sprintf("%s for %d metric columns%s", values(len(row.Metrics)), len(metrics), in)}
		}
		for j, v := range row.Metrics {
			if math.IsInf(v, 0) {
				return &fieldError{pathIndex(pathKey(rp, "metrics"), j),
					fmt.Sprintf("column %q: infinite value (use NaN for not measured)%s", metrics[j].Name, in)}
			}
		}
		for _, key := range slices.Sorted(maps.Keys(row.Samples)) {
			vals := row.Samples[key]
			sp := pathKey(pathKey(rp, "samples"), key)
			if !sources[key] {
				return &fieldError{sp, "belong to no metric column, want a metric column's name or source" + in}
			}
			for _, v := range vals {
				if math.IsInf(v, 0) {
					return &fieldError{sp, "infinite value" + in}
				}
			}
		}
	}
	return nil
}

// validate checks one column's own fields; path is the column's.
func (c Column) validate(path string) error {
	if c.Name == "" {
		return &fieldError{pathKey(path, "name"), "empty, want the column's name"}
	}
	switch c.Kind {
	case KindLabel:
		if c.Unit != "" || c.Display != "" || c.Better != "" || c.Source != "" {
			return &fieldError{path, fmt.Sprintf("label column %q has a unit, display, better or source; those are for metrics", c.Name)}
		}
		return nil
	case KindMetric:
	default:
		return &fieldError{pathKey(path, "kind"), fmt.Sprintf("column %q: unknown kind %q, want %q or %q", c.Name, c.Kind, KindLabel, KindMetric)}
	}
	switch c.Better {
	case "", BetterLower, BetterHigher:
	default:
		return &fieldError{pathKey(path, "better"), fmt.Sprintf("column %q: unknown better %q, want %q, %q or empty", c.Name, c.Better, BetterLower, BetterHigher)}
	}
	if _, ok := displayScale(c.Unit, c.Display); !ok {
		return &fieldError{pathKey(path, "display"), fmt.Sprintf("column %q: cannot display unit %q as %q", c.Name, c.Unit, c.Display)}
	}
	return nil
}

// values says n values: "1 value", "0 values".
func values(n int) string {
	if n == 1 {
		return "1 value"
	}
	return fmt.Sprintf("%d values", n)
}
