/* floor.h: what the C floors of the bench scripts (iorloop.c, mdloop.c)
 * share: a clock, a fatal error, a process-shared barrier in anonymous
 * shared memory, P forked processes of which one failing ends the
 * others, and idle threads that give a process the shape of an MPI rank. Each floor defines FLOOR_PROG (its name, for messages) before
 * including it. */
#ifndef HPCBENCH_FLOOR_H
#define HPCBENCH_FLOOR_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_MAXPROCS 256

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, FLOOR_PROG ": %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* floor_shared maps size bytes of memory, zeroed, that every forked
 * process shares: a struct whose first member is a pthread_barrier_t, made
 * a barrier of procs processes. */
static void *floor_shared(size_t size, int procs)
{
	void *sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap", "");
	pthread_barrierattr_t a;
	pthread_barrierattr_init(&a);
	pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init((pthread_barrier_t *)sh, &a, procs);
	return sh;
}

static void *floor_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* floor_threads gives the calling process threads threads in all, the
 * others idle. A process of more than one thread pays for it in the
 * kernel on each system call on a file descriptor: fdget takes a reference
 * on the file (an atomic) unless the process is single-threaded, which no
 * Go program and no MPICH rank is (Debian's MPICH: 2 threads after
 * MPI_Init, /proc/self/status). A 4 KiB cached pread here: 412-418 ns
 * single-threaded, 440-453 ns with one idle thread. */
static void floor_threads(int threads)
{
	for (int i = 1; i < threads; i++) {
		pthread_t t;
		if ((errno = pthread_create(&t, NULL, floor_idle, NULL)) != 0)
			die("pthread_create", "");
	}
}

/* floor_run forks procs processes that each call child(rank, arg) and
 * exit 0, and waits for them all. A process that fails leaves the others
 * waiting at a barrier: they are killed. It returns 0 when every process
 * exited 0, else 1. */
static int floor_run(int procs, void (*child)(int rank, void *arg), void *arg)
{
	pid_t pids[FLOOR_MAXPROCS];
	for (int r = 0; r < procs; r++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork", "");
		if (pid == 0) {
			child(r, arg);
			_exit(0);
		}
		pids[r] = pid;
	}
	int bad = 0, status;
	pid_t pid;
	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (!bad)
			for (int r = 0; r < procs; r++)
				if (pids[r] != pid)
					kill(pids[r], SIGKILL);
		bad = 1;
	}
	return bad;
}

#endif
