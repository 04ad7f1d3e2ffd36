/*
 * abort: one rank calls MPI_Abort(MPI_COMM_WORLD, 7) right after MPI_Init
 * (rank 1, or rank 0 when the job has a single rank); every other rank waits
 * in MPI_Barrier, which never completes. A launcher must kill the job and
 * exit 7 (conformance test 4 in the PMI-1 notes).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, aborter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    aborter = size > 1 ? 1 : 0;
    if (rank == aborter) {
        fprintf(stderr, "abort: rank %d of %d calls MPI_Abort(MPI_COMM_WORLD, 7)\n", rank, size);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 7);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
