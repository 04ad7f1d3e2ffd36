package main

import (
	"strings"
	"testing"
)

// TestChartOf: one line per launcher in order of appearance, failed rows
// left out, and bad CSVs refused naming the row.
func TestChartOf(t *testing.T) {
	good := [][]string{{"hosts", "launcher", "wall_s"}, {"10", "mpiexec", "0.1"}, {"10", "hpcbench", "0.05"},
		{"100", "mpiexec", "-"}, {"100", "hpcbench", "0.3"}}
	c, err := chartOf(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 2 || c.Series[0].Name != "mpiexec" || len(c.Series[0].Points) != 1 || len(c.Series[1].Points) != 2 ||
		c.Series[1].Points[1].X != 100 || c.Series[1].Points[1].Y != 0.3 {
		t.Errorf("series %+v", c.Series)
	}
	for _, tc := range []struct {
		rows [][]string
		want string
	}{
		{nil, "want a header"},
		{[][]string{{"x", "y", "z"}, {"1", "a", "1"}}, "want a header"},
		{[][]string{{"hosts", "launcher", "wall_s"}, {"ten", "a", "1"}}, `row 2: hosts "ten"`},
		{[][]string{{"hosts", "launcher", "wall_s"}, {"10", "a"}}, "row 2: want hosts,launcher,wall_s"},
		{[][]string{{"hosts", "launcher", "wall_s"}, {"10", "a", "-"}}, "no row with a wall time"},
	} {
		if _, err := chartOf(tc.rows); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.rows, err, tc.want)
		}
	}
}
