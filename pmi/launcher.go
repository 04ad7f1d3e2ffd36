package pmi

import (
	"fmt"
	"strconv"
)

// Launch is a launch seen in a process's environment that gives it no
// PMI-1 server (neither PMI_FD nor PMI_PORT): PMIx (Slurm's srun
// --mpi=pmix, Open MPI's mpirun, Flux with -o pmi=pmix), Slurm's srun
// without an MPI plugin, Open MPI's runtime, Flux. A process so launched
// among others is not a singleton: run alone, each rank would measure as
// if it were the whole job, and report it with exit 0.
type Launch struct {
	// Launcher names what launched the process, as a user calls it
	// ("Open MPI's mpirun (PMIx)"), and Saw the variables that say so
	// ("PMIX_RANK=1").
	Launcher, Saw string
	// Rank is this process's rank in the launch, and Size the number of
	// processes; -1 where the environment does not say.
	Rank, Size int
	// Hint says what to do instead.
	Hint string
	// PMIx marks a PMIx launch: one this process joins through OpenPMIx
	// where the library loads (Join), and Why then says why it did not.
	PMIx bool
	Why  string
}

// ForeignLaunch returns the launch getenv shows that this process cannot
// join over PMI-1, if any (a PMIx launch it may still join through
// OpenPMIx: see Join and Launch.PMIx): none when PMI_FD or PMI_PORT gives it a PMI-1
// server, whatever else is set (srun --mpi=pmi2 sets SLURM_PROCID too). A
// launch of one process (a size of 1) is a
// singleton's and is not reported; a PMIx launch whose size the
// environment does not give is. getenv treats an empty variable as unset
// only if the caller's does: Connect's does.
func ForeignLaunch(getenv func(string) (string, bool)) (Launch, bool) {
	get := func(k string) string {
		v, ok := getenv(k)
		if !ok {
			return ""
		}
		return v
	}
	num := func(k string) int {
		n, err := strconv.Atoi(get(k))
		if err != nil || n < 0 {
			return -1
		}
		return n
	}
	slurmSize := func() int {
		if n := num("SLURM_STEP_NUM_TASKS"); n >= 0 {
			return n
		}
		return num("SLURM_NTASKS")
	}
	if get("PMI_FD") != "" || get("PMI_PORT") != "" {
		return Launch{}, false // a PMI-1 server: srun --mpi=pmi2, Hydra, hpcbench launch
	}
	pmix := ""
	for _, k := range append([]string{"PMIX_RANK", "PMIX_NAMESPACE"}, serverURIs...) {
		if v := get(k); v != "" {
			pmix = k + "=" + v
			break
		}
	}
	switch {
	case pmix != "":
		l := Launch{Launcher: "a PMIx launcher", Saw: pmix, Rank: num("PMIX_RANK"), Size: -1, PMIx: true,
			Hint: "launch with hpcbench launch, MPICH's mpiexec, or srun --mpi=pmi2"}
		switch {
		case get("SLURM_PROCID") != "":
			l.Launcher, l.Size = "Slurm's srun --mpi=pmix", slurmSize()
			l.Hint = "use srun --mpi=pmi2 (or hpcbench launch)"
		case get("OMPI_COMM_WORLD_SIZE") != "":
			l.Launcher, l.Size = "Open MPI's mpirun (PMIx)", num("OMPI_COMM_WORLD_SIZE")
			l.Hint = "launch with hpcbench launch or MPICH's mpiexec (Hydra), or under Slurm with srun --mpi=pmi2"
		case get("FLUX_JOB_ID") != "":
			l.Launcher, l.Size = "Flux (PMIx)", num("FLUX_JOB_SIZE")
			l.Hint = "run flux run with its default simple PMI (-o pmi=simple)"
		}
		if l.Size == 1 {
			return Launch{}, false
		}
		return l, true
	case get("SLURM_PROCID") != "" && slurmSize() > 1:
		return Launch{Launcher: "Slurm's srun without an MPI plugin", Saw: "SLURM_PROCID=" + get("SLURM_PROCID"),
			Rank: num("SLURM_PROCID"), Size: slurmSize(), Hint: "use srun --mpi=pmi2 (or hpcbench launch)"}, true
	case num("OMPI_COMM_WORLD_SIZE") > 1:
		return Launch{Launcher: "Open MPI's mpirun", Saw: "OMPI_COMM_WORLD_SIZE=" + get("OMPI_COMM_WORLD_SIZE"),
			Rank: num("OMPI_COMM_WORLD_RANK"), Size: num("OMPI_COMM_WORLD_SIZE"),
			Hint: "launch with hpcbench launch or MPICH's mpiexec (Hydra), or under Slurm with srun --mpi=pmi2"}, true
	case get("FLUX_JOB_ID") != "" && num("FLUX_JOB_SIZE") > 1:
		return Launch{Launcher: "Flux", Saw: "FLUX_JOB_ID=" + get("FLUX_JOB_ID"),
			Rank: num("FLUX_TASK_RANK"), Size: num("FLUX_JOB_SIZE"), Hint: "run flux run with its simple PMI (-o pmi=simple), which sets PMI_FD"}, true
	}
	return Launch{}, false
}

// ForeignLaunchError is Connect's refusal of a launch it cannot join
// (ForeignLaunch): a usage error, exit 2.
type ForeignLaunchError struct{ Launch Launch }

// Error says, on one line, what launched the process, how many processes
// it has, and what to do.
func (e *ForeignLaunchError) Error() string {
	l := e.Launch
	size := ""
	if l.Size > 0 {
		size = fmt.Sprintf(" of %d processes", l.Size)
	}
	if l.PMIx {
		why := l.Why
		if why == "" {
			why = "OpenPMIx is not loaded"
		}
		return fmt.Sprintf("launched by %s (%s) as one%s, it cannot join the job through PMIx (%s) and would run alone as a singleton; else %s",
			l.Launcher, l.Saw, size, why, l.Hint)
	}
	return fmt.Sprintf("launched by %s (%s) as one%s, with no PMI-1 server (neither PMI_FD nor PMI_PORT): it cannot join the job, and would run alone as a singleton; %s",
		l.Launcher, l.Saw, size, l.Hint)
}
