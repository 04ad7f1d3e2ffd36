/*
 * hello: the MPICH end-to-end test program (conformance test 1 in the PMI-1
 * notes). MPI_Init, an MPI_Allreduce of rank+1 checked against n(n+1)/2,
 * MPI_Barrier, one line of output per rank, MPI_Finalize.
 *
 * Output: "rank R of N sum S". Exit status 1, with a message on stderr, when
 * the reduction is wrong; every rank gets the same sum, so every rank exits
 * and none is left waiting in the barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long local, sum, want;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    local = (long)rank + 1;
    sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    want = (long)size * ((long)size + 1) / 2;
    if (sum != want) {
        fprintf(stderr, "hello: rank %d of %d: MPI_Allreduce sum %ld, want %ld\n",
                rank, size, sum, want);
        exit(1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d sum %ld\n", rank, size, sum);
    fflush(stdout);

    MPI_Finalize();
    return 0;
}
