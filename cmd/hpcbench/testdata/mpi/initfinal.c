/*
 * initfinal: MPI_Init and MPI_Finalize, nothing else. scripts/bench-launch.sh
 * times it under mpiexec and under hpcbench launch, so the difference is the
 * launcher and its PMI server.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
