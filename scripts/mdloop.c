/*
 * mdloop.c: the floor for hpcbench mdtest -F: plain syscalls, nothing else.
 *
 *   mdloop -n ITEMS -p PROCS -d DIR
 *
 * Forks PROCS processes. Each creates DIR/test-dir.0-0/mdtest_tree.<r>.0/
 * (mdtest -u's tree for rank r, so paths have as many components as
 * hpcbench mdtest's and their lookups cost the same) and, phase by phase
 * between process-shared barriers, creates ITEMS empty files
 * (open O_CREAT|O_WRONLY, close), stats them, and unlinks them, with the
 * same names mdtest uses (file.mdtest.<rank>.<i>), formatted before the
 * timed loop. Per phase it prints the aggregate rate as mdtest computes it:
 * PROCS * ITEMS over the slowest process's time (first barrier to second),
 * one line per phase:
 *
 *   File creation 12345.678
 *   File stat 123456.789
 *   File removal 45678.901
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PHASES = 3, MAXPROCS = 256 };
static const char *names[PHASES] = {"File creation", "File stat", "File removal"};

struct shared {
	pthread_barrier_t bar;
	double secs[MAXPROCS][PHASES];
	int failed;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mdloop: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void run(struct shared *sh, int rank, long n, const char *dir)
{
	char top[4096], base[4096];
	snprintf(top, sizeof top, "%s/test-dir.0-0", dir);
	if (mkdir(top, 0755) != 0 && errno != EEXIST)
		die("mkdir", top);
	snprintf(base, sizeof base, "%s/mdtest_tree.%d.0", top, rank);
	if (mkdir(base, 0755) != 0 && errno != EEXIST)
		die("mkdir", base);
	char **paths = malloc(n * sizeof *paths);
	for (long i = 0; i < n; i++) {
		if (asprintf(&paths[i], "%s/file.mdtest.%d.%ld", base, rank, i) < 0)
			die("asprintf", base);
	}
	struct stat st;
	for (int ph = 0; ph < PHASES; ph++) {
		pthread_barrier_wait(&sh->bar);
		double t0 = now();
		for (long i = 0; i < n; i++) {
			switch (ph) {
			case 0: {
				int fd = open(paths[i], O_CREAT | O_WRONLY, 0644);
				if (fd < 0)
					die("open", paths[i]);
				close(fd);
				break;
			}
			case 1:
				if (stat(paths[i], &st) != 0)
					die("stat", paths[i]);
				break;
			case 2:
				if (unlink(paths[i]) != 0)
					die("unlink", paths[i]);
				break;
			}
		}
		pthread_barrier_wait(&sh->bar);
		sh->secs[rank][ph] = now() - t0;
	}
	rmdir(base);
	rmdir(top); /* the last process out removes it */
}

int main(int argc, char **argv)
{
	long n = 1000;
	int procs = 1;
	const char *dir = ".";
	int c;
	while ((c = getopt(argc, argv, "n:p:d:")) != -1) {
		switch (c) {
		case 'n': n = atol(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		default:
			fprintf(stderr, "usage: mdloop -n ITEMS -p PROCS -d DIR\n");
			return 2;
		}
	}
	if (n < 1 || procs < 1 || procs > MAXPROCS) {
		fprintf(stderr, "mdloop: -n must be >= 1 and -p 1..%d\n", MAXPROCS);
		return 2;
	}
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap", "");
	pthread_barrierattr_t a;
	pthread_barrierattr_init(&a);
	pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&sh->bar, &a, procs);
	for (int r = 0; r < procs; r++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork", "");
		if (pid == 0) {
			run(sh, r, n, dir);
			_exit(0);
		}
	}
	int bad = 0, status;
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad = 1;
	if (bad)
		return 1;
	for (int ph = 0; ph < PHASES; ph++) {
		double worst = 0;
		for (int r = 0; r < procs; r++)
			if (sh->secs[r][ph] > worst)
				worst = sh->secs[r][ph];
		printf("%s %.3f\n", names[ph], (double)procs * n / worst);
	}
	return 0;
}
