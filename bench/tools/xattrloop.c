// xattrloop: getxattr (one name) or listxattr on a path in a loop for SECONDS; prints ops/s.
//   xattrloop SECONDS get|list PATH [NAME]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: xattrloop SECONDS get|list PATH [NAME]\n"); return 2; }
    double end = now() + atof(argv[1]), start = now();
    int list = strcmp(argv[2], "list") == 0;
    char buffer[65536];
    long ops = 0, failures = 0;
    while (now() < end) {
        for (int i = 0; i < 64; i++) {
            ssize_t n = list ? listxattr(argv[3], buffer, sizeof buffer) : getxattr(argv[3], argv[4], buffer, sizeof buffer);
            if (n < 0) failures++;
            ops++;
        }
    }
    printf("%.0f\n", ops / (now() - start));
    return failures ? 1 : 0;
}
