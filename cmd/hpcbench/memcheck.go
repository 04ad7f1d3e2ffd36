package main

import (
	"github.com/hpcbench/hpcbench/internal/cliflag"
	pipeline "github.com/hpcbench/hpcbench/internal/run"
)

// checkHostMemory runs check, an engine's buffer check, for this rank's
// host: its memory and the job's ranks on it. The refusal is a usage
// error (exit 2) for the command name; the first rank of the host says it
// (pipeline.OwnError), and the job names the host when it has several.
// Where the host's memory cannot be read, nothing is refused.
func checkHostMemory(name string, rec *pipeline.Record, rank int, check func(ranks int, host cliflag.HostMemory) error) error {
	host, err := cliflag.ReadHostMemory()
	if err != nil || rank < 0 || rank >= len(rec.RankHosts) {
		return nil
	}
	own := rec.RankHosts[rank]
	ranks, first := 0, -1
	for r, h := range rec.RankHosts {
		if h == own {
			ranks++
			if first < 0 {
				first = r
			}
		}
	}
	cerr := check(ranks, host)
	if cerr == nil {
		return nil
	}
	where := ""
	if rec.Run.Hosts > 1 {
		where = "host " + own + ": "
	}
	uerr := usagef("%s: %s%v", name, where, cerr)
	if rank == first {
		return &pipeline.OwnError{Err: uerr}
	}
	return uerr
}
