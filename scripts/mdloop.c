/*
 * mdloop.c: the floor for hpcbench mdtest: plain syscalls, nothing else.
 *
 *   mdloop -n ITEMS -p PROCS -d DIR [-F | -D] [-u] [-w BYTES] [-e BYTES] [-T THREADS]
 *
 * Forks PROCS processes that run mdtest's phases on mdtest's layout, with
 * mdtest's names, between process-shared barriers:
 *
 *   DIR/test-dir.0-0/mdtest_tree.0/      the tree all ranks share, made by
 *                                        rank 0 (mdtest without -u), or
 *   DIR/test-dir.0-0/mdtest_tree.R.0/    rank R's own tree (-u)
 *
 * holding rank R's items dir.mdtest.R.I and file.mdtest.R.I, I = 0..ITEMS-1.
 * Every path is formatted before the phases, so the timed loops are the
 * system calls alone:
 *
 *   Directory creation   mkdir(dir, 0755)
 *   Directory stat       stat(dir)
 *   Directory rename     rename(dir, dir.renamed)
 *   Directory removal    rmdir(dir.renamed)
 *   File creation        open(file, O_CREAT|O_WRONLY, 0664), write BYTES (-w), close
 *   File stat            stat(file)
 *   File read            open(file, O_RDONLY), read BYTES (-e), close
 *   File removal         unlink(file)
 *
 * With -T, each process has THREADS threads (default 1), the others idle,
 * as an MPI rank has (see floor_threads in floor.h).
 *
 * As mdtest, the default runs the directory phases then the file phases;
 * -F runs only the file phases and -D only the directory ones. (mdtest's
 * "Directory read" does nothing and has no line here.) Per phase it prints
 * the aggregate rate as mdtest computes it, PROCS * ITEMS over the slowest
 * process's time from the barrier before the loop to the one after it:
 *
 *   File creation 12345.678
 *
 * Any failed call ends the run with a message naming it and exit status 1.
 */
#define _GNU_SOURCE
#define FLOOR_PROG "mdloop"
#include "floor.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	DIR_CREATE,
	DIR_STAT,
	DIR_RENAME,
	DIR_REMOVE,
	FILE_CREATE,
	FILE_STAT,
	FILE_READ,
	FILE_REMOVE,
	PHASES,
	MAXPROCS = FLOOR_MAXPROCS,
	MAXBYTES = 64 << 20,
};
static const char *names[PHASES] = {
	"Directory creation", "Directory stat", "Directory rename", "Directory removal",
	"File creation", "File stat", "File read", "File removal",
};

struct shared {
	pthread_barrier_t bar;
	double secs[MAXPROCS][PHASES];
};

struct config {
	long n;
	int procs, unique, dirs, files, threads;
	size_t wbytes, rbytes;
	const char *dir;
};

/* paths formats the paths of n items of kind ("dir" or "file") in base. */
static char **paths(const char *base, const char *kind, int rank, long n, const char *suffix)
{
	char **ps = malloc(n * sizeof *ps);
	if (ps == NULL)
		die("malloc", base);
	for (long i = 0; i < n; i++)
		if (asprintf(&ps[i], "%s/%s.mdtest.%d.%ld%s", base, kind, rank, i, suffix) < 0)
			die("asprintf", base);
	return ps;
}

/* xfer writes or reads all of len bytes at offset 0 of fd. */
static void xfer(int fd, char *buf, size_t len, int wr, const char *path)
{
	size_t done = 0;
	while (done < len) {
		ssize_t k = wr ? pwrite(fd, buf + done, len - done, done) : pread(fd, buf + done, len - done, done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die(wr ? "write" : "read", path);
		if (k == 0) {
			if (!wr)
				return; /* end of file: mdtest reads what there is */
			errno = EIO;
			die("write", path);
		}
		done += k;
	}
}

static void op(int ph, const char *p, const char *renamed, char *buf, const struct config *c)
{
	struct stat st;
	int fd;
	switch (ph) {
	case DIR_CREATE:
		if (mkdir(p, 0755) != 0)
			die("mkdir", p);
		break;
	case DIR_STAT:
	case FILE_STAT:
		if (stat(p, &st) != 0)
			die("stat", p);
		break;
	case DIR_RENAME:
		if (rename(p, renamed) != 0)
			die("rename", p);
		break;
	case DIR_REMOVE:
		if (rmdir(renamed) != 0)
			die("rmdir", renamed);
		break;
	case FILE_CREATE:
		if ((fd = open(p, O_CREAT | O_WRONLY, 0664)) < 0)
			die("open", p);
		if (c->wbytes > 0)
			xfer(fd, buf, c->wbytes, 1, p);
		if (close(fd) != 0)
			die("close", p);
		break;
	case FILE_READ:
		if ((fd = open(p, O_RDONLY)) < 0)
			die("open", p);
		if (c->rbytes > 0)
			xfer(fd, buf, c->rbytes, 0, p);
		if (close(fd) != 0)
			die("close", p);
		break;
	case FILE_REMOVE:
		if (unlink(p) != 0)
			die("unlink", p);
		break;
	}
}

static void run(struct shared *sh, int rank, const struct config *c)
{
	char top[4096], base[8192];
	floor_threads(c->threads);
	snprintf(top, sizeof top, "%s/test-dir.0-0", c->dir);
	if (c->unique)
		snprintf(base, sizeof base, "%s/mdtest_tree.%d.0", top, rank);
	else
		snprintf(base, sizeof base, "%s/mdtest_tree.0", top);
	if (c->unique || rank == 0) {
		if (mkdir(top, 0755) != 0 && errno != EEXIST)
			die("mkdir", top);
		if (mkdir(base, 0755) != 0)
			die("mkdir", base);
	}
	char **dirs = c->dirs ? paths(base, "dir", rank, c->n, "") : NULL;
	char **renamed = c->dirs ? paths(base, "dir", rank, c->n, ".renamed") : NULL;
	char **files = c->files ? paths(base, "file", rank, c->n, "") : NULL;
	size_t len = c->wbytes > c->rbytes ? c->wbytes : c->rbytes;
	char *buf = NULL;
	if (posix_memalign((void **)&buf, 4096, len > 0 ? len : 1) != 0)
		die("posix_memalign", "");
	memset(buf, 'a' + rank % 26, len);
	for (int ph = 0; ph < PHASES; ph++) {
		int isdir = ph < FILE_CREATE;
		if ((isdir && !c->dirs) || (!isdir && !c->files))
			continue;
		char **ps = isdir ? dirs : files;
		pthread_barrier_wait(&sh->bar);
		double t0 = now();
		for (long i = 0; i < c->n; i++)
			op(ph, ps[i], isdir ? renamed[i] : NULL, buf, c);
		pthread_barrier_wait(&sh->bar);
		sh->secs[rank][ph] = now() - t0;
	}
	pthread_barrier_wait(&sh->bar);
	if (c->unique || rank == 0) {
		if (rmdir(base) != 0)
			die("rmdir", base);
		rmdir(top); /* with -u the last process out removes it */
	}
}

static size_t bytes(const char *s, char flag)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0 || v > MAXBYTES) {
		fprintf(stderr, "mdloop: -%c %s: want a byte count 0..%d\n", flag, s, MAXBYTES);
		exit(2);
	}
	return v;
}

/* child is a forked process's body: run with what main set up. */
struct child {
	struct shared *sh;
	const struct config *c;
};

static void child(int rank, void *arg)
{
	const struct child *x = arg;
	run(x->sh, rank, x->c);
}

int main(int argc, char **argv)
{
	struct config c = {.n = 1000, .procs = 1, .dirs = 1, .files = 1, .dir = ".", .threads = 1};
	int ch;
	while ((ch = getopt(argc, argv, "n:p:d:FDuw:e:T:")) != -1) {
		switch (ch) {
		case 'n': c.n = atol(optarg); break;
		case 'p': c.procs = atoi(optarg); break;
		case 'd': c.dir = optarg; break;
		case 'F': c.dirs = 0; c.files = 1; break;
		case 'D': c.files = 0; c.dirs = 1; break;
		case 'u': c.unique = 1; break;
		case 'w': c.wbytes = bytes(optarg, 'w'); break;
		case 'e': c.rbytes = bytes(optarg, 'e'); break;
		case 'T': c.threads = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: mdloop -n ITEMS -p PROCS -d DIR [-F | -D] [-u] [-w BYTES] [-e BYTES] [-T THREADS]\n");
			return 2;
		}
	}
	if (c.threads < 1 || c.threads > 64) {
		fprintf(stderr, "mdloop: -T %d: want 1..64\n", c.threads);
		return 2;
	}
	if (c.n < 1 || c.procs < 1 || c.procs > MAXPROCS) {
		fprintf(stderr, "mdloop: -n must be >= 1 and -p 1..%d\n", MAXPROCS);
		return 2;
	}
	struct shared *sh = floor_shared(sizeof *sh, c.procs);
	/* Rank 0 makes the shared tree; the first phase's barrier orders its
	 * mkdir before the other ranks' calls in it. */
	struct child body = {sh, &c};
	if (floor_run(c.procs, child, &body) != 0)
		return 1;
	for (int ph = 0; ph < PHASES; ph++) {
		int isdir = ph < FILE_CREATE;
		if ((isdir && !c.dirs) || (!isdir && !c.files))
			continue;
		double worst = 0;
		for (int r = 0; r < c.procs; r++)
			if (sh->secs[r][ph] > worst)
				worst = sh->secs[r][ph];
		printf("%s %.3f\n", names[ph], (double)c.procs * c.n / worst);
	}
	return 0;
}
