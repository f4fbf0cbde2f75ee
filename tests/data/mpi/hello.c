/* SPDX-License-Identifier: Apache-2.0 */
/* An MPI program for the cluster tests (charm-mpi.sh): every rank reports its host, the sum of
 * all ranks' rank + 1 (a collective) and the rank its left neighbour sent it (point to point,
 * across nodes when the job spans them). Built on a compute machine with that base's mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
        int rank, size, mine, sum = 0, got = -1;
        char host[256] = "";

        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        gethostname(host, sizeof(host) - 1);
        mine = rank + 1;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d of %d on %s sum %d from %d\n", rank, size, host, sum, got);
        MPI_Finalize();
        return 0;
}
