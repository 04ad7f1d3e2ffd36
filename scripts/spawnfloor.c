/*
 * spawnfloor: the floor for a local launcher. It starts N copies of PATH
 * [ARG...] with posix_spawn (argv[0] is PATH, the environment is inherited),
 * then reaps them all with waitpid. scripts/bench-launch.sh times it next to
 * mpiexec and hpcbench launch: no launcher can start and reap N processes
 * faster than this loop does. With ARGs it starts programs that need them:
 * `spawnfloor 1024 hpcbench version` is 1,024 hpcbench processes that exit at
 * once, the floor for a job of 1,024 hpcbench ranks.
 *
 * Each child gets a session of its own (POSIX_SPAWN_SETSID), as Hydra's and
 * hpcbench's ranks do: under sched autogroup a session is a unit of CPU
 * share, so on a machine busy with other sessions a floor whose children
 * all shared one session would get less CPU than the launchers it is the
 * floor of.
 *
 * usage: spawnfloor N PATH [ARG...]
 * Exit status 0 when every child was spawned and exited 0; 1 otherwise, with
 * the reason on stderr; 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    char *end;
    long n, i, started = 0, failed = 0;
    pid_t *pids;

    if (argc < 3) {
        fprintf(stderr, "usage: spawnfloor N PATH [ARG...]\n");
        return 2;
    }
    errno = 0;
    n = strtol(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || end == argv[1] || n < 1 || n > INT_MAX) {
        fprintf(stderr, "spawnfloor: N must be a positive integer, got %s\n", argv[1]);
        return 2;
    }
    pids = calloc((size_t)n, sizeof *pids);
    if (pids == NULL) {
        fprintf(stderr, "spawnfloor: out of memory for %ld pids\n", n);
        return 1;
    }

    char **child_argv = &argv[2]; /* PATH [ARG...], NULL-terminated like argv */
    posix_spawnattr_t attr;
    int aerr = posix_spawnattr_init(&attr);
    if (aerr == 0)
        aerr = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    if (aerr != 0) {
        fprintf(stderr, "spawnfloor: posix_spawnattr: %s\n", strerror(aerr));
        return 1;
    }
    for (i = 0; i < n; i++) {
        int err = posix_spawn(&pids[i], argv[2], NULL, &attr, child_argv, environ);
        if (err != 0) {
            fprintf(stderr, "spawnfloor: posix_spawn %s (child %ld of %ld): %s\n",
                    argv[2], i + 1, n, strerror(err));
            failed++;
            break;
        }
        started++;
    }

    for (i = 0; i < started; i++) {
        int status;
        pid_t pid;

        do {
            pid = waitpid(pids[i], &status, 0);
        } while (pid < 0 && errno == EINTR);
        if (pid < 0) {
            fprintf(stderr, "spawnfloor: waitpid %ld: %s\n", (long)pids[i], strerror(errno));
            failed++;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            failed++;
        }
    }
    if (failed > 0) {
        fprintf(stderr, "spawnfloor: %ld of %ld children failed\n", failed, n);
        return 1;
    }
    posix_spawnattr_destroy(&attr);
    free(pids);
    return 0;
}
