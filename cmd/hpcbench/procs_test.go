package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The e2e fault tests find a job's processes in /proc: the one home of
// that, for launch_faults_e2e_test.go and stall_e2e_test.go.

// procParents maps every pid in /proc to its parent's.
func procParents() map[int]int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state, ppid, ...
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = pp
		}
	}
	return parent
}

// children lists the pids whose parent is pid.
func children(pid int) []int {
	var kids []int
	for k, pp := range procParents() {
		if pp == pid {
			kids = append(kids, k)
		}
	}
	return kids
}

// descendants returns the pids whose parent chain leads to root.
func descendants(root int) []int {
	parent := procParents()
	var out []int
	for pid := range parent {
		for p, n := parent[pid], 0; p != 0 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// stopTagEnv is the variable stopRank puts in a job's environment, so that
// ranks a launcher does not start as its descendants (srun's, under
// slurmstepd) are found too.
const stopTagEnv = "HB_STOP_TAG"

// tagged returns the pids whose environment holds stopTagEnv=tag.
func tagged(tag string) []int {
	want := []byte(stopTagEnv + "=" + tag)
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(b, []byte{0}) {
			if bytes.Equal(kv, want) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// rankOf reads PMI_RANK from pid's environment, -1 without one.
func rankOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return -1
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, []byte("PMI_RANK="))
		if !ok {
			v, ok = bytes.CutPrefix(kv, []byte("PMIX_RANK=")) // Open MPI's mpirun, srun --mpi=pmix
		}
		if ok {
			if r, err := strconv.Atoi(string(v)); err == nil {
				return r
			}
		}
	}
	return -1
}

// isRank reports whether pid is a benchmark rank (not a launcher, proxy or
// spawner) with PMI_RANK (or PMIX_RANK) rank in its environment.
func isRank(pid, rank int) bool {
	if rankOf(pid) != rank {
		return false
	}
	argv, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(string(argv), "\x00")
	return len(args) > 1 && filepath.Base(args[0]) == filepath.Base(hpcbench) && (args[1] == "coll" || args[1] == "ior" || args[1] == "mdtest")
}
