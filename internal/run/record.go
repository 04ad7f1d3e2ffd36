package run

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/hpcbench/hpcbench/aiori"
	"github.com/hpcbench/hpcbench/fabric"
	"github.com/hpcbench/hpcbench/internal/job"
	"github.com/hpcbench/hpcbench/internal/version"
	"github.com/hpcbench/hpcbench/pmi"
	"github.com/hpcbench/hpcbench/report"
)

// Record is the run record the pipeline fills once for every benchmark,
// and the facts about the job the engines need beside it.
type Record struct {
	// Run is the base of the engine's report.Run: Benchmark, Command,
	// Version, Hostnames, Hosts, Ranks, Start and the environment facts
	// in Env ("pmi", "transport", "cpus", "oversubscribed", "backend",
	// "backend.OPTION"). The engine sets its own Start and End when it
	// measures them and adds its own Env keys.
	Run report.Run
	// HostRanks is the most ranks any one host runs, and CPUs the online
	// CPUs of that host.
	HostRanks, CPUs int
	// RankHosts names the host of every rank, indexed by rank, for the
	// engines' per-rank and per-host tables.
	RankHosts []string
	// Machine is uname's sysname and nodename ("Linux vm"); Platform is
	// IOR's nodename(sysname).
	Machine, Platform string
}

// BaseRun returns a copy of the record's report.Run that the caller may
// change: its slices and map are its own.
func (r *Record) BaseRun() report.Run {
	run := r.Run
	run.Command = append([]string(nil), r.Run.Command...)
	run.Hostnames = append([]string(nil), r.Run.Hostnames...)
	run.Env = maps.Clone(r.Run.Env)
	if run.Env == nil {
		run.Env = map[string]string{}
	}
	return run
}

// newRecord fills the record on every rank; with a job, the host
// gathering is collective.
func newRecord(ctx context.Context, s *runSpec, j *job.Job, start time.Time) (Record, error) {
	rec := Record{Machine: Machine(), Platform: Platform()}
	run := &rec.Run
	run.Benchmark = s.Name
	run.Command = append([]string{"hpcbench", s.Name}, s.Args...)
	run.Version = version.String()
	run.Start = start
	run.Env = map[string]string{"pmi": pmi.Kind(s.Getenv)} // an engine without a job (wireup) joins itself
	if j != nil {
		run.Env["pmi"] = j.PMI.Kind()
	}
	host, err := Hostname(s.Getenv)
	if err != nil {
		return rec, fmt.Errorf("host name: %w", err)
	}
	own := hostInfo{name: host, cpus: fabric.OnlineCPUs()}
	hosts := []hostInfo{own}
	if j != nil {
		if hosts, err = gatherHosts(ctx, j.Comm, own); err != nil {
			return rec, err
		}
		run.Env["transport"] = j.Transports()
	}
	fillHosts(&rec, hosts, own.cpus)
	if j != nil {
		run.Env["cpus"] = strconv.Itoa(rec.CPUs)
	}
	getenv := orLookupEnv(s.Getenv)
	if v, ok := getenv(fabric.IfaceEnv); ok && v != "" && j != nil {
		// The interface the ranks published (as Hydra's -iface).
		run.Env["iface"] = v
	}
	if v, ok := getenv("GOMAXPROCS"); ok {
		// Set by the user, or by hpcbench launch on a crowded host.
		run.Env["gomaxprocs"] = v
	}
	if s.Backend != "" {
		run.Env["backend"] = s.Backend
		maps.Copy(run.Env, BackendFacts(s.BackendOptions))
	}
	return rec, nil
}

// fillHosts sets the record's ranks, hosts, and ranks and CPUs per host
// from every rank's host, in rank order: Hostnames in order of first
// appearance, HostRanks the most ranks on one host (CPUs that host's), and
// "oversubscribed" the host with the most ranks per CPU when it has more
// ranks than CPUs.
func fillHosts(rec *Record, hosts []hostInfo, ownCPUs int) {
	run := &rec.Run
	run.Ranks = len(hosts)
	run.Hostnames = nil
	rec.RankHosts = make([]string, len(hosts))
	count := map[string]int{}
	cpus := map[string]int{}
	for i, h := range hosts {
		rec.RankHosts[i] = h.name
		if count[h.name] == 0 {
			run.Hostnames = append(run.Hostnames, h.name)
			cpus[h.name] = h.cpus
		}
		count[h.name]++
	}
	run.Hosts = len(run.Hostnames)
	rec.HostRanks, rec.CPUs = 1, ownCPUs
	worst := 0.0
	for _, name := range run.Hostnames {
		n, c := count[name], cpus[name]
		if n > rec.HostRanks || (n == rec.HostRanks && c < rec.CPUs) {
			rec.HostRanks, rec.CPUs = n, c
		}
		if c > 0 && n > c && float64(n)/float64(c) > worst {
			worst = float64(n) / float64(c)
			run.Env[report.EnvOversubscribed] = fmt.Sprintf("%d ranks / %d CPUs", n, c)
		}
	}
}

// BackendFacts returns a backend's options as Env facts, each under its
// flag's name ("posix.odirect": "false").
func BackendFacts(o aiori.Options) map[string]string {
	m := map[string]string{}
	if o == nil {
		return m
	}
	fs := pflag.NewFlagSet("backend", pflag.ContinueOnError)
	o.AddFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) { m[f.Name] = f.Value.String() })
	return m
}
