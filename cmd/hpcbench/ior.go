package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/aiori/dummy"
	"github.com/hpcbench/hpcbench/aiori/mmap"
	"github.com/hpcbench/hpcbench/aiori/posix"
	"github.com/hpcbench/hpcbench/internal/ior"
	"github.com/hpcbench/hpcbench/internal/ior/config"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/report"
)

// backends is the registry of I/O backends this build offers, the default
// first, as IOR's default is its first compiled-in backend.
func backends() (*aiori.Registry, error) {
	return aiori.NewRegistry(posix.Entry(), mmap.Entry(), dummy.Entry())
}

// runIOR is `hpcbench ior`: IOR's command line, measurement and output.
func runIOR(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	reg, err := backends()
	if err != nil {
		return fmt.Errorf("ior: %w", err)
	}
	cfg, err := config.Parse(args, reg)
	if err != nil {
		if errors.Is(err, config.ErrHelp) {
			fmt.Fprint(stdout, config.Usage(reg))
			return nil
		}
		return usagef("ior: %v", err)
	}
	for i := range cfg.Tests {
		if err := unsupported(&cfg.Tests[i]); err != nil {
			return usagef("ior: %v", err)
		}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "WARNING: "+w)
	}
	last := cfg.Tests[len(cfg.Tests)-1]
	return benchJob(ctx, "ior", ior.ErrVerify, func(j *job.Job, host string) (*report.Result, error) {
		env := ior.Env{
			Command:   append([]string{"hpcbench", "ior"}, args...),
			Version:   version.String(),
			Machine:   machine(),
			Platform:  platform(),
			Hostnames: []string{host},
			Hosts:     j.Hosts,
			HostRanks: j.HostRanks,
		}
		if j.PMI.Rank() == 0 {
			env.Warn = func(line string) { fmt.Fprintln(stderr, line) }
		}
		return ior.Run(ctx, j.Comm, cfg.Tests, env)
	}, func(res *report.Result) error { return writeIORReports(stdout, res, &last) })
}

// unsupported refuses, before any I/O, the IOR options hpcbench parses but
// does not implement, rather than ignoring them.
func unsupported(o *config.Options) error {
	switch {
	case o.MemoryPerNode != "":
		return fmt.Errorf("-M %s: hogging memory is not supported by hpcbench", o.MemoryPerNode)
	case o.SavePerOpDataCSV != "":
		return fmt.Errorf("-O savePerOpDataCSV: per-operation CSV files are not supported yet")
	case o.RandomPrefill > 0:
		return fmt.Errorf("--randomPrefill: not supported yet")
	case o.DualMount:
		return fmt.Errorf("-y: dual mount points are not supported")
	}
	return nil
}

// writeIORReports renders res: the human report on stdout, or IOR's
// summaryFormat there when no summaryFile is given; the summaryFile in its
// format; the per-rank CSV. Files are written whole or not at all.
func writeIORReports(stdout io.Writer, res *report.Result, o *config.Options) error {
	format := func(w io.Writer) error {
		switch o.SummaryFormat {
		case config.SummaryJSON:
			return report.WriteIORJSON(w, res)
		case config.SummaryCSV:
			return report.WriteIORCSV(w, res)
		}
		return report.WriteIOR(w, res)
	}
	if o.SummaryFile != "" {
		if err := writeFileAtomic(o.SummaryFile, format); err != nil {
			return fmt.Errorf("ior: -O summaryFile: %w", err)
		}
		if err := report.WriteIOR(stdout, res); err != nil {
			return err
		}
	} else if err := format(stdout); err != nil {
		return err
	}
	if path := o.SaveRankPerformanceDetailsCSV; path != "" {
		if err := writeFileAtomic(path, func(w io.Writer) error { return report.WriteIORRankCSV(w, res) }); err != nil {
			return fmt.Errorf("ior: -O saveRankPerformanceDetailsCSV: %w", err)
		}
	}
	return nil
}

// machine is IOR's "Machine": uname's sysname and nodename.
func machine() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Nodename[:])
}

// platform is IOR's JSON "platform": nodename(sysname).
func platform() string {
	sys, node, ok := strings.Cut(machine(), " ")
	if !ok {
		return "unknown"
	}
	return node + "(" + sys + ")"
}
