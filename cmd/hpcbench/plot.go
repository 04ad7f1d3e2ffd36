package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
	"github.com/hpcbench/hpcbench/report/plot"
)

const plotUsage = "hpcbench plot FILE... (-o OUT.png | -o OUT.svg | --terminal) [--chart KIND] [--metric latency|bandwidth]"

// plotArgs are plot's options.
type plotArgs struct {
	files    []string
	output   string
	terminal bool
	opts     plot.Options
}

// runPlot is `hpcbench plot`: a chart of saved runs, one line or bar per
// archive, as a PNG or SVG file or drawn in the terminal.
func runPlot(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	pa, err := parsePlot(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	archives := make([]plot.Archive, 0, len(pa.files))
	for _, name := range pa.files {
		r, err := readArchive(name)
		if err != nil {
			return usagef("plot: %v", err)
		}
		archives = append(archives, plot.Archive{Name: name, Result: r})
	}
	chart, err := plot.Select(archives, pa.opts)
	if err != nil {
		return usagef("%v", err)
	}
	if pa.output != "" {
		var out bytes.Buffer
		write := plot.WritePNG
		if strings.EqualFold(filepath.Ext(pa.output), ".svg") {
			write = plot.WriteSVG
		}
		if err := write(&out, chart); err != nil {
			return err
		}
		if err := pipeline.WriteFile(pa.output, func(w io.Writer) error {
			_, err := w.Write(out.Bytes())
			return err
		}); err != nil {
			return err
		}
	}
	if pa.terminal {
		return plot.WriteTerminal(stdout, chart)
	}
	return nil
}

// parsePlot parses and validates plot's command line.
func parsePlot(args []string, stdout io.Writer) (plotArgs, error) {
	fs := newFlagSet("plot")
	var pa plotArgs
	var kind, metric string
	fs.VarP(cliflag.Path{P: &pa.output}, "output", "o", "write the chart to `FILE`: PNG if it ends in .png, SVG if in .svg")
	fs.BoolVar(&pa.terminal, "terminal", false, "draw the chart on stdout as text")
	fs.StringVar(&kind, "chart", string(plot.KindAuto), "draw chart `KIND`: auto (the benchmark's own), size, phase or time")
	fs.StringVar(&metric, "metric", string(plot.MetricAuto), "plot `FIGURE` against message size on a size chart: auto (bandwidth for fabric bw and rma_bw, else latency), latency or bandwidth")
	if err := parseFlags(fs, args, stdout, plotUsage); err != nil {
		return pa, err
	}
	pa.files = fs.Args()
	pa.opts = plot.Options{Kind: plot.Kind(kind), Metric: plot.Metric(metric)}
	switch ext := strings.ToLower(filepath.Ext(pa.output)); {
	case !slices.Contains(plot.Kinds(), pa.opts.Kind):
		return pa, usagef("plot: --chart %q: want one of %s", oneLine(kind), joinNames(plot.Kinds()))
	case !slices.Contains(plot.Metrics(), pa.opts.Metric):
		return pa, usagef("plot: --metric %q: want one of %s", oneLine(metric), joinNames(plot.Metrics()))
	case pa.output == "" && !pa.terminal:
		return pa, usagef("plot: no output: give -o FILE (.png or .svg) or --terminal")
	case pa.output != "" && ext != ".png" && ext != ".svg":
		return pa, usagef("plot: -o %q: the file name must end in .png or .svg", oneLine(pa.output))
	case len(pa.files) == 0:
		return pa, usagef("plot: no archives: give one or more FILEs written by --archive or --output")
	}
	if pa.output != "" {
		if err := pipeline.CheckOutput(pa.output); err != nil {
			return pa, usagef("plot: -o %s", oneLine(err.Error()))
		}
	}
	return pa, nil
}

// joinNames returns names as a list for an error: "auto, size, phase, time".
func joinNames[T ~string](names []T) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return strings.Join(out, ", ")
}
