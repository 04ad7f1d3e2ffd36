// Package pmix is a PMIx client over OpenPMIx, the library every PMIx
// launcher serves (Slurm's srun --mpi=pmix, Open MPI's mpirun, PRRTE,
// Flux with -o pmi=pmix). The library is loaded at run time
// (github.com/ebitengine/purego dlopens libpmix.so.2), so the one binary
// the README builds, with CGO_ENABLED=0, speaks PMIx wherever a site has
// libpmix installed and still runs where it has not: Open then fails with
// an error that names the library and the Debian package. Built with
// -tags nopmix the package loads nothing and the binary stays static.
//
// The client calls OpenPMIx's blocking API: PMIx_Init, PMIx_Get of the
// job's size (rank wildcard) and of each peer's values, PMIx_Put with
// global scope, PMIx_Commit, PMIx_Fence with PMIX_COLLECT_DATA and
// PMIX_TIMEOUT, PMIx_Abort and PMIx_Finalize. The structures it passes
// (pmix_proc_t, pmix_value_t, pmix_info_t) are laid out as OpenPMIx 3 to
// 6 lay them out on 64-bit Linux (abi.go; abi_test.go compiles a C
// program against the installed headers to check every offset).
package pmix
