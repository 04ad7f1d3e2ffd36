package main

import (
	"bytes"
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
			writeHelp(stdout, "ior", "hpcbench ior [-a API] [-b SIZE] [-t SIZE] [-s N] [-F] [-w] [-r] [-W] [-R] [-o FILE] [OPTION...]", config.Usage(reg))
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
	// The human report goes to stdout as the run goes, as IOR prints it,
	// unless stdout gets IOR's JSON or CSV.
	human := &stream{w: stdout}
	if last.SummaryFile == "" && last.SummaryFormat != config.SummaryDefault {
		human = nil
	}
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
			if human != nil {
				env.Progress = func(r *report.Result) { human.update(r, report.WriteIORProgress) }
			}
		}
		return ior.Run(ctx, j.Comm, cfg.Tests, env)
	}, func(res *report.Result) error { return writeIORReports(stdout, human, res, &last) })
}

// stream prints a report that grows as the run goes: each update writes
// only what the rendering adds to what is already on w. A rendering that
// does not extend what was printed (a writer bug) is held back until the
// end.
type stream struct {
	w       io.Writer
	printed []byte
	broken  bool
	err     error
}

// update renders r with render and prints what is new.
func (s *stream) update(r *report.Result, render func(io.Writer, *report.Result) error) {
	if s.broken || s.err != nil {
		return
	}
	var b bytes.Buffer
	if err := render(&b, r); err != nil {
		s.err = err
		return
	}
	if !bytes.HasPrefix(b.Bytes(), s.printed) {
		s.broken = true
		return
	}
	if _, err := s.w.Write(b.Bytes()[len(s.printed):]); err != nil {
		s.err = err
		return
	}
	s.printed = b.Bytes()
}

// unsupported refuses, before any I/O, the IOR options hpcbench parses but
// does not implement, rather than ignoring them, with the reason.
func unsupported(o *config.Options) error {
	switch {
	case o.SummaryAlways && o.Verbose > 0:
		// At -v 0 IOR prints nothing for it either (PrintLongSummaryHeader
		// and PrintShortSummary return), so it runs as IOR runs it.
		return fmt.Errorf("-O summaryAlways with -v: not supported: IOR then prints each test's summary rows " +
			"after the test instead of its Max Write/Read lines; hpcbench prints them at the end (drop one of the two)")
	}
	return nil
}

// writeIORReports renders res: the human report on stdout, or IOR's
// summaryFormat there when no summaryFile is given; the summaryFile in its
// format; the per-rank CSV. Files are written whole or not at all.
func writeIORReports(stdout io.Writer, human *stream, res *report.Result, o *config.Options) error {
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
	}
	if human != nil {
		if err := human.finish(res); err != nil {
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

// finish prints the rest of the whole report: what WriteIOR renders beyond
// what the updates printed.
func (s *stream) finish(res *report.Result) error {
	if s.err != nil {
		return s.err
	}
	var b bytes.Buffer
	if err := report.WriteIOR(&b, res); err != nil {
		return err
	}
	out := b.Bytes()
	if !s.broken && bytes.HasPrefix(out, s.printed) {
		out = out[len(s.printed):]
	}
	_, err := s.w.Write(out)
	return err
}
