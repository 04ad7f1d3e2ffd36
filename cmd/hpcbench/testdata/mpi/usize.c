/*
 * usize: prints the MPI_UNIVERSE_SIZE and MPI_APPNUM attributes of
 * MPI_COMM_WORLD (conformance test 5 in the PMI-1 notes). Reading the
 * universe size makes MPICH send one get_universe_size.
 *
 * Output: "rank R of N universe_size U appnum A", where U or A is "unset"
 * when the attribute is not set.
 */
#include <mpi.h>
#include <stdio.h>

static void attr(int key, char *buf, size_t len)
{
    int *val = NULL;
    int flag = 0;

    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag);
    if (flag && val != NULL)
        snprintf(buf, len, "%d", *val);
    else
        snprintf(buf, len, "unset");
}

int main(int argc, char **argv)
{
    int rank, size;
    char usize[32], appnum[32];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    attr(MPI_UNIVERSE_SIZE, usize, sizeof usize);
    attr(MPI_APPNUM, appnum, sizeof appnum);
    printf("rank %d of %d universe_size %s appnum %s\n", rank, size, usize, appnum);
    fflush(stdout);

    MPI_Finalize();
    return 0;
}
