/*
 * iorloop.c: the floor for hpcbench ior -a POSIX -F: IOR's loop in plain
 * system calls, nothing else.
 *
 *   iorloop -p PROCS -b BLOCK -t XFER -o PATH [-w] [-r] [-D] [-e] [-H] [-T THREADS] [-i REPS]
 *
 * Forks PROCS processes. Process r owns PATH.<r as %08d> (IOR's -F name).
 * Each repetition, phase by phase between process-shared barriers, as IOR:
 *
 *   write (-w): fill the buffer (untimed), barrier, open(O_WRONLY|O_CREAT|
 *               O_TRUNC), BLOCK/XFER pwrite(2)s of XFER bytes at 0, XFER,
 *               2*XFER..., fsync(2) when -e, close(2);
 *   read (-r):  barrier, open(O_RDONLY), as many pread(2)s, close(2);
 *
 * with O_DIRECT on both opens under -D. The buffer is one transfer from
 * posix_memalign (4 KiB-aligned), or with -H from an anonymous mapping
 * aligned to 2 MiB and advised MADV_HUGEPAGE (hpcbench's O_DIRECT buffer
 * for transfers of 64 KiB and more, aiori.HugeBuffer: the device takes it
 * in far fewer segments), filled with IOR's timestamp pattern
 * before the first write, so its pages are in before any timing. The file
 * is unlinked after the last repetition (and before the first, if a
 * previous run left it).
 *
 * With -T, each process has THREADS threads (default 1), the others idle,
 * as an MPI rank has (see floor_threads in floor.h).
 *
 * A phase's bandwidth is IOR's: PROCS*BLOCK bytes over the latest close
 * minus the earliest open. One line per phase and repetition, in MiB/s
 * (2^20 bytes per second), as IOR's bw(MiB/s) column:
 *
 *   write 0 10234.56
 *   read 0 14567.89
 *
 * A failed call prints "iorloop: CALL PATH: ERROR" and exits 1; a bad
 * option prints one line naming it and exits 2.
 */
#define _GNU_SOURCE
#define FLOOR_PROG "iorloop"
#include "floor.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXPROCS = FLOOR_MAXPROCS, MAXREPS = 64, PHASES = 2 };
static const char *names[PHASES] = {"write", "read"};

struct shared {
	pthread_barrier_t bar;
	/* per process, repetition and phase: open start, close stop */
	double open[MAXPROCS][MAXREPS][PHASES];
	double close[MAXPROCS][MAXREPS][PHASES];
};

struct opts {
	int procs, reps, write, read, direct, fsync, huge, threads;
	long long block, xfer;
	const char *path;
};

/* fill writes IOR's timestamp pattern (-l timestamp, its default): word i
 * holds the rank in its upper half and signature + i in its lower. */
static void fill(char *buf, long long n, int rank, unsigned sig)
{
	uint64_t *w = (uint64_t *)buf;
	for (long long i = 0; i < n / 8; i++)
		w[i] = (uint64_t)rank << 32 | (uint32_t)(sig + i);
	for (long long i = n / 8 * 8; i < n; i++)
		buf[i] = (char)i;
}

static void phase(struct shared *sh, const struct opts *o, int rank, int rep, int ph, char *buf, const char *path)
{
	long long count = o->block / o->xfer;
	int flags = ph == 0 ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
	if (o->direct)
		flags |= O_DIRECT;
	pthread_barrier_wait(&sh->bar);
	double t0 = now();
	int fd = open(path, flags, 0664);
	if (fd < 0)
		die("open", path);
	for (long long i = 0; i < count; i++) {
		off_t off = (off_t)i * o->xfer;
		ssize_t n = ph == 0 ? pwrite(fd, buf, o->xfer, off) : pread(fd, buf, o->xfer, off);
		if (n < 0)
			die(ph == 0 ? "pwrite" : "pread", path);
		if (n != o->xfer) {
			errno = EIO;
			die(ph == 0 ? "short pwrite" : "short pread", path);
		}
	}
	if (ph == 0 && o->fsync && fsync(fd) != 0)
		die("fsync", path);
	if (close(fd) != 0)
		die("close", path);
	sh->open[rank][rep][ph] = t0;
	sh->close[rank][rep][ph] = now();
}

static void run(struct shared *sh, const struct opts *o, int rank)
{
	char path[4096];
	snprintf(path, sizeof path, "%s.%08d", o->path, rank);
	floor_threads(o->threads);
	void *p, *map = NULL;
	size_t maplen = 0;
	if (o->huge) {
		size_t hp = 2u << 20, len = ((size_t)o->xfer + hp - 1) / hp * hp;
		maplen = len + hp;
		map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			die("mmap", "");
		p = (char *)map + (hp - (uintptr_t)map % hp) % hp;
		if (madvise(p, len, MADV_HUGEPAGE) != 0 && errno != EINVAL)
			die("madvise", "");
	} else if ((errno = posix_memalign(&p, 4096, o->xfer)) != 0)
		die("posix_memalign", "");
	char *buf = p;
	/* IOR's signature is the time; any value does, it is untimed. */
	fill(buf, o->xfer, rank, (unsigned)time(NULL));
	if (unlink(path) != 0 && errno != ENOENT)
		die("unlink", path);
	for (int rep = 0; rep < o->reps; rep++) {
		if (o->write)
			phase(sh, o, rank, rep, 0, buf, path);
		if (o->read)
			phase(sh, o, rank, rep, 1, buf, path);
	}
	if (unlink(path) != 0 && errno != ENOENT)
		die("unlink", path);
	if (map != NULL)
		munmap(map, maplen);
	else
		free(buf);
}

/* size parses N with an optional k, m or g suffix (powers of 1024). */
static long long size(const char *s, const char *flag)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (errno != 0 || end == s || *end != '\0' || v < 1) {
		fprintf(stderr, "iorloop: %s %s: want a positive size, optionally with k, m or g\n", flag, s);
		exit(2);
	}
	return v;
}

/* child is a forked process's body: run with what main set up. */
struct child {
	struct shared *sh;
	const struct opts *o;
};

static void child(int rank, void *arg)
{
	const struct child *x = arg;
	run(x->sh, x->o, rank);
}

int main(int argc, char **argv)
{
	struct opts o = {.procs = 1, .reps = 1, .block = 1 << 20, .xfer = 1 << 20, .path = "testfile", .threads = 1};
	int c;
	while ((c = getopt(argc, argv, "p:b:t:o:i:wrDeHT:")) != -1) {
		switch (c) {
		case 'p': o.procs = atoi(optarg); break;
		case 'i': o.reps = atoi(optarg); break;
		case 'b': o.block = size(optarg, "-b"); break;
		case 't': o.xfer = size(optarg, "-t"); break;
		case 'o': o.path = optarg; break;
		case 'w': o.write = 1; break;
		case 'r': o.read = 1; break;
		case 'D': o.direct = 1; break;
		case 'e': o.fsync = 1; break;
		case 'H': o.huge = 1; break;
		case 'T': o.threads = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: iorloop -p PROCS -b BLOCK -t XFER -o PATH [-w] [-r] [-D] [-e] [-H] [-T THREADS] [-i REPS]\n");
			return 2;
		}
	}
	if (o.procs < 1 || o.procs > MAXPROCS) {
		fprintf(stderr, "iorloop: -p %d: want 1..%d\n", o.procs, MAXPROCS);
		return 2;
	}
	if (o.threads < 1 || o.threads > 64) {
		fprintf(stderr, "iorloop: -T %d: want 1..64\n", o.threads);
		return 2;
	}
	if (o.reps < 1 || o.reps > MAXREPS) {
		fprintf(stderr, "iorloop: -i %d: want 1..%d\n", o.reps, MAXREPS);
		return 2;
	}
	if (o.block % o.xfer != 0) {
		fprintf(stderr, "iorloop: -b %lld: want a multiple of -t %lld\n", o.block, o.xfer);
		return 2;
	}
	if (!o.write && !o.read) {
		fprintf(stderr, "iorloop: want -w, -r or both\n");
		return 2;
	}
	struct shared *sh = floor_shared(sizeof *sh, o.procs);
	struct child body = {sh, &o};
	if (floor_run(o.procs, child, &body) != 0)
		return 1;
	for (int rep = 0; rep < o.reps; rep++) {
		for (int ph = 0; ph < PHASES; ph++) {
			if ((ph == 0 && !o.write) || (ph == 1 && !o.read))
				continue;
			double first = sh->open[0][rep][ph], last = sh->close[0][rep][ph];
			for (int r = 1; r < o.procs; r++) {
				if (sh->open[r][rep][ph] < first)
					first = sh->open[r][rep][ph];
				if (sh->close[r][rep][ph] > last)
					last = sh->close[r][rep][ph];
			}
			printf("%s %d %.2f\n", names[ph], rep, (double)o.procs * o.block / (last - first) / (1 << 20));
		}
	}
	return 0;
}
