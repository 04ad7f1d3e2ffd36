package main

import (
	"strings"

	"github.com/hpcbench/hpcbench/internal/cliflag"
	"github.com/hpcbench/hpcbench/internal/imb"
	iorconfig "github.com/hpcbench/hpcbench/internal/ior/config"
	mdconfig "github.com/hpcbench/hpcbench/internal/mdtest/config"
)

// helpFor returns what the help of the command name says around its
// options (see writeHelp). Its not-supported lists are checked against the
// commands' behaviour by TestHelpUnsupportedRefused.
func helpFor(name string) helpInfo {
	ok := exitStatus{"0", "success"}
	usage := exitStatus{"2", "invalid options: one line on stderr names the option and what it accepts; nothing is run or created"}
	sig := exitStatus{"128+N", "stopped by signal N (SIGINT: 130, SIGTERM: 143), after cleaning up"}
	if strings.HasPrefix(name, "fabric ") {
		name = "fabric" // its tests' and info's flag sets share its help
	}
	if strings.HasPrefix(name, "dfs ") {
		name = "dfs" // as fabric's
	}
	switch name {
	case "help":
		return helpInfo{
			about: "Lists the commands, or prints the help of one: hpcbench help CMD is\nhpcbench CMD --help.",
			exits: []exitStatus{{"0", "help printed"}, {"2", "an unknown command, or more than one"}},
		}
	case "version":
		return helpInfo{
			about: "Prints the version of this build and the Go release that built it, then the\nlaunchers its ranks join: hpcbench launch, PMI-1 (Hydra, srun --mpi=pmi2,\nFlux) and PMIx (Open MPI's mpirun, srun --mpi=pmix) with the OpenPMIx\nversion this host loads, or why it loads none; hpcbench --version and\nhpcbench -version print the same.",
			exits: []exitStatus{{"0", "version printed"}, {"2", "an argument was given"}},
		}
	case "report":
		return helpInfo{
			about: `Re-renders saved runs: each FILE is an archive (what --archive FILE writes,
or coll's and wireup's --output FILE.json), printed in turn in the view
--format names, byte for byte as the run printed it. By default each is
printed as its benchmark prints by default: IOR's report, mdtest's, IMB's
tables, IO500's summary, wireup's text. A view fits only some benchmarks:

  human, json, csv         every benchmark (json is the archive itself)
  tables                   every benchmark: all its tables as hpcbench's text,
                           the latency, series, per-rank and per-host ones too
  ior, ior-json, ior-csv   ior: -O summaryFormat=default, JSON, CSV
  ior-rank-csv             ior: -O saveRankPerformanceDetailsCSV's file
  mdtest, mdtest-json,     mdtest: --format human, json, csv
  mdtest-csv
  mdtest-rank-csv          mdtest: --saveRankPerformanceDetails's file
  imb                      coll: IMB-MPI1's tables
  io500                    io500: its result_summary.txt (the [RESULT] and
                           [SCORE ] lines, why the run is invalid)
  fabtests                 fabric pingpong, bw, rma_bw, rma_pingpong:
                           fi_pingpong's table

IOR's and mdtest's own JSON are views, not archives: they cannot be read
back.`,
			exits: []exitStatus{{"0", "every file printed"},
				{"2", "invalid options, or a file that cannot be read, is not an archive or does not fit the view: one line on stderr names the file and what is wrong; nothing is printed"}},
		}
	case "launch":
		return helpInfo{
			about: `Starts N ranks of CMD on this host under hpcbench's own PMI-1 server, as
mpiexec does: each rank gets PMI_FD (or PMI_PORT and PMI_ID), PMI_RANK and
PMI_SIZE, so programs built with MPICH run unchanged. The ranks' output is
forwarded; the first rank that fails stops the job. With --hosts the ranks
run on those hosts: one proxy per host, started through --rsh (ssh), which
serves its ranks' PMI and joins one barrier per host; the proxies prove the
job's secret, passed on their stdin, to the launcher's control port.

--hosts or --hostfile place the ranks as Hydra does: each host in turn takes
its slots' worth of consecutive ranks (--ppn K: K each; --rr: one each),
again from the first host while ranks remain, and PMI_process_mapping tells
MPICH which ranks share a host. Hosts that are all this one (localhost, its
name) run the job here, without proxies.

Long options take one dash or two, as Hydra's do (-np 4, -bind-to core);
the arguments from CMD on are CMD's own.`,
			unsupported: []notSupported{
				{[]string{"-genv", "-genvall", "-genvnone", "-genvlist", "-env", "-envall", "-envnone", "-envlist"},
					"not supported: the ranks inherit the launcher's environment, so set variables there (env NAME=VALUE hpcbench launch ...)"},
				{[]string{"-wdir"}, "not supported: the ranks start in the launcher's directory, so cd there first"},
				{[]string{"-configfile"}, "not supported: one command per job"},
			},
			exits: []exitStatus{
				{"0", "every rank exited 0"},
				{"1", "the launcher failed: a rank could not be started, or the PMI server failed"},
				usage,
				{"123", "the watchdog ended a stalled job: a rank stopped, or still in a phase other ranks had left, past its deadline (--phase-timeout)"},
				{"124", "the job ran longer than --timeout; the ranks still running were killed"},
				{"130", "the launcher was interrupted by SIGINT (Ctrl-C) and stopped the ranks; a second SIGINT kills them at once"},
				{"143", "the launcher got SIGTERM and stopped the ranks"},
				{"N", "the first failing rank's exit status (MPI_Abort(comm, 7) gives 7; a rank killed by signal S gives 128+S)"},
			},
		}
	case "wireup":
		return helpInfo{
			about: `Benchmarks the PMI bootstrap: each rank puts a business card of --card-size
bytes into the job's key-value store, joins a barrier and gets its peers'
cards (--pattern all: every card; ring: its successor's); rank 0 reports the
time of each phase. Run it under a launcher (hpcbench launch -n 4 -- hpcbench
wireup, mpiexec, srun) or alone.

Long options take one dash or two (-card-size 128, --card-size 128).`,
			exits: []exitStatus{ok, {"1", "a PMI operation failed or outlasted --timeout"}, usage, sig},
		}
	case "coll":
		names := imb.UnsupportedOptions()
		for i, n := range names {
			names[i] = "-" + n
		}
		return helpInfo{
			about: `The Intel MPI Benchmarks' IMB-MPI1: PingPong, PingPing, Sendrecv, Exchange,
Barrier, Bcast, Scatter, Gather, Allgather, Alltoall, Reduce and Allreduce
(all of them by default; names in any case), with IMB's repetition schedule,
timing and table. Ranks on one host talk over shared memory, others over
TCP. Run it under a launcher: hpcbench launch -n 4 -- hpcbench coll.

Options take one dash, as IMB's do (-msglog 0:22), or two (--msglog=0:22).`,
			unsupported: []notSupported{{names, "IMB-MPI1 options that hpcbench coll does not support"}},
			exits:       []exitStatus{ok, {"1", "a benchmark failed, or -check found a wrong result"}, usage, sig},
		}
	case "ior":
		return helpInfo{
			about: `IOR 4: parallel file I/O bandwidth and IOPS over POSIX, MMAP or DUMMY, with
IOR's command line, -O directives, -f scripts, timing and report. Run it
under a launcher (hpcbench launch -n 8 -- hpcbench ior ...) or alone.

As in IOR, one dash starts short options, which group (-wr is -w -r), and
long options take two (--posix.odirect).`,
			unsupported: refusals(iorconfig.Unsupported()),
			exits:       []exitStatus{ok, {"1", "an I/O error, or a verification failure (-W, -R)"}, usage, sig},
		}
	case "mdtest":
		return helpInfo{
			about: `mdtest 4: the rates of file and directory creates, stats, reads, renames
and removes in a tree, over POSIX or DUMMY, with mdtest's command line,
phases and SUMMARY tables, plus JSON and CSV. Run it under a launcher
(hpcbench launch -n 8 -- hpcbench mdtest ...) or alone.

As in mdtest, one dash starts short options, which group (-FCr is -F -C -r),
and long options take two (--showRankStatistics).`,
			unsupported: refusals(mdconfig.Unsupported()),
			exits:       []exitStatus{ok, {"1", "operations failed (counted per phase; the first failure is reported)"}, usage, sig},
		}
	case "io500":
		return helpInfo{
			about: `IO500: reads IO500's INI files as they are ([global], [debug], one section
per phase; an unknown key is refused naming it and its section), runs the
standard phases in IO500's order with its fixed parameters (ior-easy,
mdtest-easy, timestamp, ior-hard, mdtest-hard, find, then the reads, stats
and deletes), on the job's ranks with the ior and mdtest engines, and
computes the score as IO500 does. The console gets IO500's [RESULT] and
[SCORE ] lines; the results dir gets result.txt, result_summary.txt, the
configuration and every phase's own output. Why a run is invalid is said
in plain words as well as in IO500's "ERROR INVALID" lines. Run it under a
launcher (hpcbench launch -n 8 -- hpcbench io500 config.ini) or alone.`,
			exits: []exitStatus{ok, {"1", "a phase failed (its error is printed once)"}, usage, sig},
		}
	case "compare":
		return helpInfo{
			about: `Compares the saved runs OLD with NEW, as benchstat does: each is an archive
(--archive FILE, --output FILE.json) or a directory of them (its *.json),
and several archives of one side are pooled. Runs are grouped by benchmark
and parameters; a benchmark whose parameters differ between the sides is
refused, not compared, and so are sides with no benchmark in common.

For every metric of every table row it prints the old and new medians with
their 95% confidence intervals, the change with its interval, and the
Mann-Whitney U test's p-value: ~ when the change is not significant at
--alpha, "too few samples" when no change could be (at alpha 0.05, fewer
than 4 samples a side). The samples are a row's raw figures (per rank),
else the metric's one value per archive; the rows of a table that differ
only in their iteration (IOR's iter, mdtest's iteration) are one row, each
iteration a sample, so ior -i 5 gives 5 samples a side. A metric on one
side only is listed so; one that OLD has and NEW lacks fails the gate
(when its better direction is known), and a run marked failed is refused
as a sample.

The human view fits the terminal's width (80 columns when stdout is not
one, or --width): it leaves out the intervals, then p and n, and shortens
names, never wrapping a row; each figure's unit is said once, in its
metric's heading. Metrics with no better direction and the same figures on
both sides (a block size, a task count) are left out of it, not of CSV or
JSON.

Gate a CI job on it: hpcbench compare baseline/ new/. A metric without a
known better direction is shown but never fails.`,
			exits: []exitStatus{{"0", "no metric regressed significantly beyond --threshold"}, {"1", "a metric regressed significantly (p < alpha) by more than --threshold"},
				{"2", "invalid options, or an unreadable or mismatched archive: one line on stderr names the file and the field; nothing is printed"}},
		}
	case "fabric":
		return helpInfo{
			about: `Measures the fabric between two ends as libfabric's fabtests (fi_pingpong,
fi_msg_bw, fi_rma_bw) and perftest (ib_send_lat, ib_send_bw, ib_write_lat)
do: pingpong (one message each way, again; usec/xfer is half the round
trip), bw (a window of -W messages, one acknowledgement), rma_bw (a window
of one-sided writes into the other end's memory) or rma_pingpong (each end
writes into the other's memory, which polls for the last byte), over -p
tcp, shm, verbs or ucx (the RMA tests too: tcp by frames the other end's
receiver writes, shm by cross-memory attach, verbs by RDMA, ucx by UCP's
put and get). -p ucx uses the UCX installed here (libucp, loaded at run
time), configured by UCX_TLS and the other UCX_* variables as UCX reads
them; -d sets UCX_NET_DEVICES. info lists the providers and their devices
with their limits (-p and -d narrow it).

allpairs, under a launcher, measures a ping-pong (--lat-size, -I) and a
bandwidth test (--bw-size, --bw-iters) between every two hosts (the first
rank of each; --ranks, or a job on one host: every two ranks) in the
rounds of a round-robin tournament, so no endpoint is in two tests at
once; it prints the pairs, the latency (the mean of half a round trip,
and its p99) and bandwidth matrices, and one line for each link or host
outside the population's spread (median and MAD of the logarithms, and
beyond 0.8x or, for latency, 2x the median): slow link: node07 <-> node12: ...
(hpcbench fabric allpairs --help for its own options).

Two ways to run it:
  server/client  hpcbench fabric pingpong -p tcp waits on control port -B
                 (47592); hpcbench fabric pingpong -p tcp HOST connects. The
                 client's options decide the run; both ends print the table.
  launched       hpcbench launch -n 2 -- hpcbench fabric pingpong -p shm (or
                 under mpiexec, srun --mpi=pmi2): rank 0 plans and prints.

The table is fi_pingpong's: bytes, #sent (timed messages sent), #ack (those
the other end received: "=" and the count when all did), total (bytes moved
both ways), time (seconds), MB/sec (10^6 bytes per second), usec/xfer (time
per transfer), Mxfers/sec; then the p50, p99 and max of one transfer's time
in microseconds over the iterations, and with -D the least MB/sec of a
--report-interval.`,
			exits: []exitStatus{ok, {"1", "the other end failed, went away or sent nothing for --timeout, or -c found a wrong message"}, usage, sig},
		}
	case "dfs":
		return helpInfo{
			about: `Manages hpcbench's DAOS-like object store, which ior and mdtest reach
with -a DFS, as DAOS's dmg and daos do, and runs its engine as
daos_engine does.

A pool is a directory (DIR) with its targets: target directories inside
it (--targets, 4 by default) or anywhere else, on any file systems
(--target, repeated). pool create makes one, checking everything first
and making nothing when it refuses; pool query lists its targets with
their capacity, its containers and the engine that serves it; pool list
lists the pools among PARENT's directories; pool destroy removes the
targets and the pool (refused while an engine holds it).

A container holds the objects of one DFS namespace: cont create makes
one with a chunk size (--chunk-size, a multiple of 4k up to 1g; 1m by
default) and object classes for files and directories (--oclass and
--dir-oclass: S1, S2, S4, ..., SX, striping chunks over that many of the
pool's targets; SX and S1 by default); cont query shows them with the
objects and bytes it holds; cont destroy removes it and its objects.

engine serves a pool to many jobs over shm (its host) and tcp (--listen,
any host) until SIGTERM or SIGINT, then closes it without losing what it
acknowledged; while it runs, the pool's engine.addr names it, and jobs
and the commands above go through it. Without a standalone engine, a
job's rank 0 runs one in its own process for the job's length.`,
			exits: []exitStatus{{"0", "success; for engine, stopped by SIGTERM or SIGINT with its pool closed"}, {"1", "the store failed (an I/O error, an engine that went away)"},
				{"2", "invalid options, a missing pool or container, a pool held by an engine for pool destroy: one line on stderr says which; nothing is created"}, sig},
		}
	case "plot":
		return helpInfo{
			about: `Charts saved runs (the archives --archive and --output write, "schema":
"hpcbench/1"), one line or bar per FILE so that runs compare at a glance:
latency against message size (coll, fabric pingpong and rma_pingpong) or
bandwidth (fabric bw and rma_bw; --metric picks either), bandwidth against
transfer size or per phase (ior), rate per phase (mdtest), time per phase
(wireup), or, with --chart time, throughput over time from an archive's
time-series table (ior, mdtest and coll). The chart follows the archives'
benchmark; archives of different benchmarks are refused, but coll and
fabric ones, which share a size chart. fabric allpairs has no chart.

-o writes a PNG or an SVG, as its name ends; --terminal draws the chart on
stdout as text instead, or as well.`,
			exits: []exitStatus{ok, {"1", "the chart could not be written"},
				{"2", "invalid options, an unreadable archive, archives of different benchmarks, or nothing to chart: one line on stderr says which; nothing is created"}},
		}
	}
	return helpInfo{exits: []exitStatus{ok, usage}}
}

// refusals turns a parser's table of refused options into the help's
// not-supported list.
func refusals(rs []cliflag.Refusal) []notSupported {
	out := make([]notSupported, 0, len(rs))
	for _, r := range rs {
		out = append(out, notSupported{r.Names, r.Why})
	}
	return out
}
