// Package run is the one lifecycle of a benchmark rank, which every
// benchmark subcommand (ior, mdtest, coll, every fabric test, wireup) goes
// through. A benchmark is an Engine (Plan, Run, Render); a command binds
// its flags to the engine's options and calls Main, which:
//
//  1. checks the outputs, chooses the transports (internal/transport:
//     every one the build offers, or the engine's own) and the stall
//     deadlines of --phase-timeout, and bootstraps the job
//     (internal/job), unless the engine bootstraps PMI
//     itself (wireup, which measures that); then rank 0, which writes
//     the archive, checks that its path can be written (a usage error,
//     exit 2, said once for the job, nothing created; without a job every
//     rank checks before PMI and only rank 0 says it);
//  2. fill the run record once for all: command line, version, start and
//     end, ranks, every rank's host name gathered over the communicator
//     (so Hosts and Hostnames are true on many hosts), CPUs per host and
//     oversubscription, the transports in use, the backend and its
//     options, the PMI kind;
//  3. check what depends on the job's size (Plan.ForSize) and the
//     engine's buffers against each host's memory, gathered once for the
//     job (Plan.Memory; a refusal names the host), then run the engine,
//     which reports the phase it is in through a Phase hook that also
//     tells the communicator, for the watchdog's messages;
//  4. on a hard failure abort the job through PMI (exit 1, or 2 for a
//     usage error), the error printed once: by rank 0 for a usage error
//     (every rank has it), by the failing rank otherwise;
//  5. on rank 0 render the views and write the archive, atomically;
//  6. exit 0, 1 (a benchmark or verification failure: the results are
//     still written, and the run record says the run failed) or 2.
//
// HPCBENCH_HOSTNAME, when set, replaces the host name a rank reports to
// the gathering (and nothing else: the job's transports still see the
// real host). It exists for tests and simulation, to give the ranks of
// one machine the names of several.
package run
