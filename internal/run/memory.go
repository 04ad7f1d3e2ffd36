package run

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/hpcbench/hpcbench/internal/hostmem"
)

// memSources are the HostMemory sources in the order hostMemory encodes
// them (0 is "not read").
var memSources = [...]string{"", "MemAvailable", "MemTotal", "the memory cgroup's limit"}

// hostMemory returns what this rank's host can give the job's buffers,
// one answer for all of the host's ranks: every rank reads its host's
// memory, the job gathers the readings, and each host takes the largest
// of its ranks'. Every reading precedes every allocation, since no rank
// leaves the gather before every rank has read, and every rank of a host
// decides on the same figure; a rank reading alone while its neighbours
// already hold their buffers would see less and refuse alone. ok is false
// where the host's memory cannot be read (nothing is refused then).
func hostMemory(ctx context.Context, e *Env) (m hostmem.HostMemory, ok bool, err error) {
	var own [16]byte
	if h, rerr := hostmem.ReadHostMemory(); rerr == nil {
		for i, s := range memSources {
			if s == h.Source && i > 0 {
				binary.LittleEndian.PutUint64(own[:], uint64(h.Bytes))
				binary.LittleEndian.PutUint64(own[8:], uint64(i))
			}
		}
	}
	c := e.Job.Comm
	all := make([]byte, 16*c.Size())
	if err := c.Allgather(ctx, own[:], all); err != nil {
		return m, false, fmt.Errorf("gathering the hosts' memory: %w", err)
	}
	m, ok = hostReading(all, e.Record.RankHosts, c.Rank())
	return m, ok, nil
}

// hostReading returns the largest reading of rank's host in all, the
// gathered 16-byte readings (bytes, source index) of every rank.
func hostReading(all []byte, hosts []string, rank int) (m hostmem.HostMemory, ok bool) {
	if rank >= len(hosts) {
		return m, false
	}
	for r := range len(all) / 16 {
		if r >= len(hosts) || hosts[r] != hosts[rank] {
			continue
		}
		src := binary.LittleEndian.Uint64(all[16*r+8:])
		b := int64(binary.LittleEndian.Uint64(all[16*r:]))
		if src > 0 && src < uint64(len(memSources)) && (!ok || b > m.Bytes) {
			m, ok = hostmem.HostMemory{Bytes: b, Source: memSources[src]}, true
		}
	}
	return m, ok
}

// checkMemory runs check, an engine's buffer check (Plan.Memory), for
// this rank's host: the job's size, its ranks on the host and the host's
// memory, one figure for all of them (hostMemory). The refusal is a usage
// error (exit 2) for the command name; the first rank of the host says it
// (OwnError), and the job names the host when it has several. Nothing is
// refused where the host's memory cannot be read.
func checkMemory(ctx context.Context, name string, e *Env, check func(np, ranks int, host hostmem.HostMemory) error) error {
	host, ok, err := hostMemory(ctx, e)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !ok {
		return nil
	}
	return checkHostMemory(name, &e.Record, e.Job.Comm.Rank(), e.Job.Comm.Size(), host, check)
}

// checkHostMemory is checkMemory once the host's memory is known.
func checkHostMemory(name string, rec *Record, rank, np int, host hostmem.HostMemory, check func(np, ranks int, host hostmem.HostMemory) error) error {
	if rank < 0 || rank >= len(rec.RankHosts) {
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
	cerr := check(np, ranks, host)
	if cerr == nil {
		return nil
	}
	where := ""
	if rec.Run.Hosts > 1 {
		where = "host " + own + ": "
	}
	uerr := Usagef("%s: %s%v", name, where, cerr)
	if rank == first {
		return &OwnError{Err: uerr}
	}
	return uerr
}
