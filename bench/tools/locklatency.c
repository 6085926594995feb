// locklatency: how long after `keychainfs device lock` starts does a read of VALUE first fail with EACCES?
//   locklatency KEYCHAINFS MOUNT VALUE      prints milliseconds
// The probe reads every 0.2 ms rather than flat out: on a 2-core machine a flat-out reader and the
// daemon serving it take both cores, and the figure measured that contention instead of the lock.
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: locklatency KEYCHAINFS MOUNT VALUE\n"); return 2; }
    char *args[] = {argv[1], "device", "lock", "--mount", argv[2], NULL};
    char buffer[4096];
    pid_t pid;
    double start = now();
    if (posix_spawn(&pid, argv[1], NULL, NULL, args, environ) != 0) { perror("spawn"); return 1; }
    for (;;) {
        int fd = open(argv[3], O_RDONLY);
        int denied = fd < 0 && errno == EACCES;
        if (fd >= 0) { if (read(fd, buffer, sizeof buffer) < 0 && errno == EACCES) denied = 1; close(fd); }
        if (denied) break;
        if (now() - start > 10) { fprintf(stderr, "no EACCES within 10 s\n"); return 1; }
        usleep(200);
    }
    printf("%.2f\n", (now() - start) * 1000);
    int status;
    waitpid(pid, &status, 0);
    return 0;
}
