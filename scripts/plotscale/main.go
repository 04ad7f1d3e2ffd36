// Command plotscale draws scripts/bench-launch.sh's simulated-host rows, a
// CSV of hosts,launcher,wall_s,cpu_ms,peak_kib, as the wall time of each
// launcher against the hosts on log axes, with report/plot's PNG writer:
//
//	go run ./scripts/plotscale docs/launch-scale.csv docs/launch-scale.png
package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"

	"github.com/hpcbench/hpcbench/report/plot"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: plotscale CSV PNG")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "plotscale:", err)
		os.Exit(1)
	}
}

// run reads the rows of in and writes their chart to out.
func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("reading the rows: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("reading %s: %w", in, err)
	}
	c, err := chartOf(rows)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	w, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	if err := plot.WritePNG(w, c); err != nil {
		w.Close()
		return fmt.Errorf("drawing %s: %w", out, err)
	}
	return w.Close()
}

// chartOf turns the CSV's rows (a header, then hosts,launcher,wall_s,...)
// into one line per launcher, in the order they first appear; rows whose
// wall time is missing ("-", a failed row) are left out.
func chartOf(rows [][]string) (*plot.Chart, error) {
	if len(rows) < 2 || len(rows[0]) < 3 || rows[0][0] != "hosts" {
		return nil, fmt.Errorf("want a header hosts,launcher,wall_s,... and rows")
	}
	c := &plot.Chart{Kind: plot.KindSize, Title: "launch and wire-up (PMI put, barrier, get) against hosts, one rank each",
		X: plot.Axis{Label: "hosts", Scale: plot.Log10}, Y: plot.Axis{Label: "wall time", Unit: "s", Scale: plot.Log10}}
	index := map[string]int{}
	for i, r := range rows[1:] {
		if len(r) < 3 {
			return nil, fmt.Errorf("row %d: want hosts,launcher,wall_s", i+2)
		}
		h, err := strconv.ParseFloat(r[0], 64)
		if err != nil || h <= 0 {
			return nil, fmt.Errorf("row %d: hosts %q: want a number above 0", i+2, r[0])
		}
		wall, err := strconv.ParseFloat(r[2], 64)
		if err != nil || wall <= 0 {
			continue // a row that failed
		}
		k, ok := index[r[1]]
		if !ok {
			k = len(c.Series)
			index[r[1]] = k
			c.Series = append(c.Series, plot.Series{Name: r[1]})
		}
		c.Series[k].Points = append(c.Series[k].Points, plot.Point{X: h, Y: wall})
	}
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("no row with a wall time")
	}
	return c, nil
}
