// mkitems: create COUNT genp items through a keychainfs mount: mkdir SERVICE/ACCOUNT, write, close.
//   mkitems MOUNT SERVICES ACCOUNTS_PER_SERVICE [PREFIX [create]]   prints items/s
// `create`: opens `value` with O_CREAT (keychainfs makes it with the item; a plain filesystem, such as the
// passthrough_ll anchor, does not).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: mkitems MOUNT SERVICES ACCOUNTS [PREFIX [create]]\n"); return 2; }
    const char *mount = argv[1], *prefix = argc > 4 ? argv[4] : "acct";
    int create = argc > 5 && strcmp(argv[5], "create") == 0;
    int services = atoi(argv[2]), accounts = atoi(argv[3]);
    char path[4096], secret[64];
    double start = now();
    for (int s = 0; s < services; s++) {
        snprintf(path, sizeof path, "%s/genp/svc%d", mount, s);
        if (mkdir(path, 0700) != 0 && errno != EEXIST) { perror(path); return 1; }
        for (int a = 0; a < accounts; a++) {
            snprintf(path, sizeof path, "%s/genp/svc%d/%s%d", mount, s, prefix, a);
            if (mkdir(path, 0700) != 0) { perror(path); return 1; }
            strncat(path, "/value", sizeof path - strlen(path) - 1);
            int fd = open(path, O_WRONLY | O_TRUNC | (create ? O_CREAT : 0), 0600);
            int length = snprintf(secret, sizeof secret, "secret-%d-%d", s, a);
            if (fd < 0 || write(fd, secret, length) != length || close(fd) != 0) { perror(path); return 1; }
        }
    }
    printf("%.1f\n", services * accounts / (now() - start));
    return 0;
}
