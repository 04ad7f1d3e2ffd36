/*
 * imbprobe: times PingPong, Barrier, Bcast, Allreduce (MPI_FLOAT sum),
 * Allgather, Alltoall, Sendrecv and Exchange over real MPI the way IMB-MPI1
 * does, so that
 * scripts/bench-coll.sh can set hpcbench coll beside MPICH without building
 * the Intel MPI Benchmarks. The method (IMB 2021 src_c; internal/imb's
 * package doc says the same for hpcbench):
 *
 *   - sizes from the command line (default 8 1024 65536 1048576 4194304);
 *     Allreduce counts size/4 floats; Barrier runs once, with no size;
 *   - a size starts from min(ITER, max(1, VOL/size)) repetitions (ITER for
 *     Barrier), then IMB's dynamic policy: one repetition is timed and the
 *     slowest rank's time t1 taken; min(start, ~1/t1) repetitions are timed
 *     and the slowest rank's mean t taken; the count is
 *     min(start, 1 + TIME/t, the previous size's count); rank 0 decides;
 *   - warm-up: max(n/10, min(10, n)) repetitions;
 *   - every kernel call starts with two MPI_Barriers; collectives time each
 *     call alone with MPI_Wtime and are followed by an MPI_Barrier outside
 *     the timing; PingPong, Barrier, Sendrecv and Exchange time the whole
 *     loop (Sendrecv: send right, receive from the left; Exchange: send to
 *     both neighbours with MPI_Isend, receive from both, wait);
 *   - per rank: mean over repetitions (PingPong: half of it, a round trip
 *     is two messages); rank 0 gathers them: min, max and mean over ranks.
 *     PingPong runs on ranks 0 and 1; the others wait.
 *
 * Usage: mpiexec -n N imbprobe [-iter N] [-vol MiB] [-time SECS] [SIZE...]
 * Output, rank 0, one line per benchmark and size (times in microseconds):
 *
 *   imbprobe,BENCHMARK,BYTES,REPETITIONS,T_MIN_US,T_MAX_US,T_AVG_US
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_BARR 2
#define MSGSPERSAMPLE 1000 /* IMB's compile-time constant of the first probe */

enum bench { PINGPONG, BARRIER, BCAST, ALLREDUCE, ALLGATHER, ALLTOALL, SENDRECV, EXCHANGE, NBENCH };
static const char *names[NBENCH] = {"PingPong", "Barrier", "Bcast", "Allreduce", "Allgather", "Alltoall", "Sendrecv", "Exchange"};

struct run {
	enum bench b;
	MPI_Comm comm; /* the active ranks */
	int rank, np, size;
	char *sbuf, *rbuf;
};

static void die(const char *what)
{
	fprintf(stderr, "imbprobe: %s\n", what);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

static void barriers(MPI_Comm c, int n)
{
	for (int i = 0; i < n; i++)
		MPI_Barrier(c);
}

/* kernel runs n repetitions and returns the mean time of one, unscaled. */
static double kernel(struct run *r, int n)
{
	double t = 0, t0;
	barriers(r->comm, N_BARR);
	switch (r->b) {
	case PINGPONG: {
		int peer = 1 - r->rank;
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++) {
			if (r->rank == 0) {
				MPI_Send(r->sbuf, r->size, MPI_BYTE, peer, 1, r->comm);
				MPI_Recv(r->rbuf, r->size, MPI_BYTE, peer, 1, r->comm, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(r->rbuf, r->size, MPI_BYTE, peer, 1, r->comm, MPI_STATUS_IGNORE);
				MPI_Send(r->sbuf, r->size, MPI_BYTE, peer, 1, r->comm);
			}
		}
		return (MPI_Wtime() - t0) / n;
	}
	case BARRIER:
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_Barrier(r->comm);
		return (MPI_Wtime() - t0) / n;
	case SENDRECV: {
		int right = (r->rank + 1) % r->np, left = (r->rank + r->np - 1) % r->np;
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++)
			MPI_Sendrecv(r->sbuf, r->size, MPI_BYTE, right, 1, r->rbuf, r->size, MPI_BYTE, left, 1,
				     r->comm, MPI_STATUS_IGNORE);
		return (MPI_Wtime() - t0) / n;
	}
	case EXCHANGE: {
		int right = (r->rank + 1) % r->np, left = (r->rank + r->np - 1) % r->np;
		MPI_Request req[2];
		MPI_Status st[2];
		t0 = MPI_Wtime();
		for (int i = 0; i < n; i++) {
			MPI_Isend(r->sbuf, r->size, MPI_BYTE, left, 1, r->comm, &req[0]);
			MPI_Isend(r->sbuf + r->size, r->size, MPI_BYTE, right, 1, r->comm, &req[1]);
			MPI_Recv(r->rbuf, r->size, MPI_BYTE, left, 1, r->comm, MPI_STATUS_IGNORE);
			MPI_Recv(r->rbuf + r->size, r->size, MPI_BYTE, right, 1, r->comm, MPI_STATUS_IGNORE);
			MPI_Waitall(2, req, st);
		}
		return (MPI_Wtime() - t0) / n;
	}
	default:
		break;
	}
	for (int i = 0; i < n; i++) {
		t0 = MPI_Wtime();
		switch (r->b) {
		case BCAST:
			MPI_Bcast(r->rank == 0 ? r->sbuf : r->rbuf, r->size, MPI_BYTE, 0, r->comm);
			break;
		case ALLREDUCE:
			MPI_Allreduce(r->sbuf, r->rbuf, r->size / 4, MPI_FLOAT, MPI_SUM, r->comm);
			break;
		case ALLGATHER:
			MPI_Allgather(r->sbuf, r->size, MPI_BYTE, r->rbuf, r->size, MPI_BYTE, r->comm);
			break;
		case ALLTOALL:
			MPI_Alltoall(r->sbuf, r->size, MPI_BYTE, r->rbuf, r->size, MPI_BYTE, r->comm);
			break;
		default:
			break;
		}
		t += MPI_Wtime() - t0;
		MPI_Barrier(r->comm);
	}
	return t / n;
}

static double max_over(MPI_Comm c, double v)
{
	double m;
	MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, c);
	return m;
}

/* reps is IMB's dynamic repetition policy for one size. */
static int reps(struct run *r, int start, double secs, int prev)
{
	double t = max_over(r->comm, kernel(r, 1));
	int n2 = t < 1.0 / MSGSPERSAMPLE ? MSGSPERSAMPLE : t < 1 ? (int)(1 / t + 0.5) : 1;
	if (n2 > start)
		n2 = start;
	MPI_Bcast(&n2, 1, MPI_INT, 0, r->comm);
	if (n2 > 1)
		t = max_over(r->comm, kernel(r, n2));
	int cap = t > 1e-8 && 1 + secs / t <= 2147483647.0 ? (int)(1 + secs / t) : start;
	int n = start;
	if (prev < n)
		n = prev;
	if (cap < n)
		n = cap;
	MPI_Bcast(&n, 1, MPI_INT, 0, r->comm);
	return n;
}

int main(int argc, char **argv)
{
	int iter = 1000, vol = 40, nsizes = 0, wrank, wsize;
	double secs = 10;
	int sizes[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-iter") && i + 1 < argc)
			iter = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-vol") && i + 1 < argc)
			vol = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-time") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (nsizes < 64 && argv[i][0] >= '0' && argv[i][0] <= '9')
			sizes[nsizes++] = atoi(argv[i]);
		else
			die("usage: imbprobe [-iter N] [-vol MiB] [-time SECS] [SIZE...]");
	}
	if (iter < 1 || vol < 0 || secs <= 0)
		die("-iter must be >= 1, -vol >= 0 and -time > 0");
	if (nsizes == 0) {
		int def[] = {8, 1024, 65536, 1048576, 4194304};
		nsizes = 5;
		memcpy(sizes, def, sizeof def);
	}
	int maxsize = 0;
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > maxsize)
			maxsize = sizes[i];
	size_t blen = (size_t)maxsize * (wsize > 2 ? wsize : 2) + 8;
	char *sbuf = malloc(blen), *rbuf = malloc(blen);
	double *all = malloc(sizeof(double) * wsize);
	if (!sbuf || !rbuf || !all)
		die("out of memory");
	for (size_t i = 0; i < blen; i++)
		sbuf[i] = (char)(i * 31 + wrank);
	memset(rbuf, 0, blen);

	MPI_Comm pair;
	MPI_Comm_split(MPI_COMM_WORLD, wrank < 2 ? 0 : MPI_UNDEFINED, wrank, &pair);

	for (int b = 0; b < NBENCH; b++) {
		if (b == PINGPONG && wsize < 2)
			continue;
		struct run r = {.b = b, .comm = b == PINGPONG ? pair : MPI_COMM_WORLD, .sbuf = sbuf, .rbuf = rbuf};
		int active = r.comm != MPI_COMM_NULL;
		if (active) {
			MPI_Comm_rank(r.comm, &r.rank);
			MPI_Comm_size(r.comm, &r.np);
		}
		int prev = iter;
		for (int s = 0; s < (b == BARRIER ? 1 : nsizes); s++) {
			r.size = b == BARRIER ? 0 : b == ALLREDUCE ? (sizes[s] + 3) / 4 * 4 : sizes[s];
			double t = -1;
			int n = 0;
			if (active) {
				long long v = (long long)vol << 20;
				int start = iter;
				if (b != BARRIER && r.size > 0 && v / r.size < start)
					start = v / r.size > 1 ? (int)(v / r.size) : 1;
				n = prev = reps(&r, start, secs, prev);
				int warm = n / 10 > (n < 10 ? n : 10) ? n / 10 : (n < 10 ? n : 10);
				kernel(&r, warm);
				t = kernel(&r, n) * 1e6 * (b == PINGPONG ? 0.5 : 1);
			}
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_Gather(&t, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			if (wrank == 0) {
				double lo = 0, hi = 0, sum = 0;
				int k = 0;
				for (int i = 0; i < wsize; i++) {
					if (all[i] < 0)
						continue;
					if (k == 0 || all[i] < lo)
						lo = all[i];
					if (k == 0 || all[i] > hi)
						hi = all[i];
					sum += all[i];
					k++;
				}
				printf("imbprobe,%s,%d,%d,%.3f,%.3f,%.3f\n", names[b], r.size, n, lo, hi, sum / k);
				fflush(stdout);
			}
		}
	}
	if (pair != MPI_COMM_NULL)
		MPI_Comm_free(&pair);
	free(sbuf);
	free(rbuf);
	free(all);
	MPI_Finalize();
	return 0;
}
