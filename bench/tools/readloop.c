// readloop: open+read+close in a tight loop for SECONDS, printing ops/s.
//   readloop SECONDS PATH            one file
//   readloop SECONDS @LISTFILE       random files from a list (one path per line)
// Every read must return data; a failed open or read is counted and reported.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: readloop SECONDS PATH|@LIST\n"); return 2; }
    double seconds = atof(argv[1]);
    char **paths = NULL; size_t count = 0, cap = 0;
    if (argv[2][0] == '@') {
        FILE *list = fopen(argv[2] + 1, "r");
        if (!list) { perror("list"); return 2; }
        char line[4096];
        while (fgets(line, sizeof line, list)) {
            line[strcspn(line, "\n")] = 0;
            if (count == cap) { cap = cap ? cap * 2 : 1024; paths = realloc(paths, cap * sizeof *paths); }
            paths[count++] = strdup(line);
        }
        fclose(list);
    } else {
        paths = malloc(sizeof *paths); paths[0] = argv[2]; count = 1;
    }
    srand(42);
    char buffer[65536];
    long ops = 0, failures = 0;
    double start = now(), end = start + seconds;
    while (now() < end) {
        for (int i = 0; i < 64; i++) {
            const char *path = paths[count == 1 ? 0 : (size_t)rand() % count];
            int fd = open(path, O_RDONLY);
            if (fd < 0) { failures++; continue; }
            ssize_t n = read(fd, buffer, sizeof buffer);
            if (n <= 0) failures++;
            close(fd);
            ops++;
        }
    }
    double elapsed = now() - start;
    printf("%.0f\n", ops / elapsed);
    if (failures) fprintf(stderr, "readloop: %ld failures\n", failures);
    return failures ? 1 : 0;
}
