// LD_PRELOAD shim for the power-cut test (Tests/MountTests/PowerCutTests.swift, docs/testing-and-packaging.md):
// logs, in order and with their data, the calls that change files under IOLOG_DIR, so that the test can
// rebuild the files as a power cut at any flush point would have left them (ALICE's and CrashMonkey's
// user-space approach; this machine has no device-mapper for dm-log-writes).
//
// One record per call, one write(2) each to IOLOG_PATH (O_APPEND, shared by every process and by the test's
// own "ack" records): a text line "OP ARG... DATALEN\n" then DATALEN raw bytes. Paths are absolute and
// %-escaped. Files named *-shm are left out: SQLite rebuilds its WAL index from the WAL after a crash.
//   create PATH 0          open(O_CREAT) made the file (or found it)
//   trunc PATH LEN 0       O_TRUNC (LEN 0) or ftruncate
//   write PATH OFFSET N    N bytes at OFFSET
//   sync PATH 0            fsync/fdatasync of a file or directory
//   rename FROM TO 0 / link FROM TO 0 / unlink PATH 0 / mkdir PATH 0
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *fd_paths[MAX_FDS];
static int log_fd = -1;
static char prefix[PATH_MAX];
static size_t prefix_length;
static int ready;

static void setup(void) {
    if (ready) return;
    ready = 1;
    const char *dir = getenv("IOLOG_DIR"), *path = getenv("IOLOG_PATH");
    if (!dir || !path) return;
    snprintf(prefix, sizeof prefix, "%s", dir);
    prefix_length = strlen(prefix);
    log_fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

// The absolute form of `path` (relative to `dirfd`) if it names something under IOLOG_DIR, else NULL.
static char *tracked(int dirfd, const char *path) {
    if (log_fd < 0 || !path) return NULL;
    char joined[2 * PATH_MAX + 2];
    if (path[0] == '/') {
        snprintf(joined, sizeof joined, "%s", path);
    } else {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base)) return NULL;
        } else if (dirfd >= 0 && dirfd < MAX_FDS && fd_paths[dirfd]) {
            snprintf(base, sizeof base, "%s", fd_paths[dirfd]);
        } else {
            return NULL;
        }
        snprintf(joined, sizeof joined, "%s/%s", base, path);
    }
    size_t n = strlen(joined);
    while (n > 1 && joined[n - 1] == '/') joined[--n] = 0;
    if (strncmp(joined, prefix, prefix_length) != 0 || (joined[prefix_length] != 0 && joined[prefix_length] != '/'))
        return NULL;
    if (n > 4 && strcmp(joined + n - 4, "-shm") == 0) return NULL;
    return strdup(joined);
}

static void escape(char *out, const char *in) {
    for (; *in; in++) {
        unsigned char c = (unsigned char)*in;
        if (c <= ' ' || c == '%' || c >= 0x7f) out += sprintf(out, "%%%02X", c);
        else *out++ = (char)c;
    }
    *out = 0;
}

// Writes one record: `op`, up to two paths, an optional number, then `length` bytes gathered from `iov`.
static void record(const char *op, const char *a, const char *b, long long number, int with_number,
                   const struct iovec *iov, int count, size_t length) {
    char a_escaped[3 * PATH_MAX], b_escaped[3 * PATH_MAX], head[8 * PATH_MAX];
    escape(a_escaped, a);
    int h;
    if (b) {
        escape(b_escaped, b);
        h = snprintf(head, sizeof head, "%s %s %s %zu\n", op, a_escaped, b_escaped, length);
    } else if (with_number) {
        h = snprintf(head, sizeof head, "%s %s %lld %zu\n", op, a_escaped, number, length);
    } else {
        h = snprintf(head, sizeof head, "%s %s %zu\n", op, a_escaped, length);
    }
    char *buffer = malloc((size_t)h + length);
    if (!buffer) abort();
    memcpy(buffer, head, (size_t)h);
    size_t at = (size_t)h, left = length;
    for (int i = 0; i < count && left > 0; i++) {
        size_t take = iov[i].iov_len < left ? iov[i].iov_len : left;
        memcpy(buffer + at, iov[i].iov_base, take);
        at += take;
        left -= take;
    }
    size_t done = 0;
    while (done < at) {
        long n = syscall(SYS_write, log_fd, buffer + done, at - done);
        if (n <= 0) abort();  // a record lost would make the replay lie
        done += (size_t)n;
    }
    free(buffer);
}

static const char *path_of(int fd) { return fd >= 0 && fd < MAX_FDS ? fd_paths[fd] : NULL; }

// The next definition of `name` (libc's), looked up once.
#define REAL(name) \
    static __typeof__(&name) real_##name; \
    if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

static int opened(int fd, int dirfd, const char *path, int flags) {
    if (fd < 0 || fd >= MAX_FDS) return fd;
    pthread_mutex_lock(&lock);
    setup();
    free(fd_paths[fd]);
    fd_paths[fd] = tracked(dirfd, path);
    if (fd_paths[fd]) {
        if (flags & O_CREAT) record("create", fd_paths[fd], NULL, 0, 0, NULL, 0, 0);
        if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY) record("trunc", fd_paths[fd], NULL, 0, 1, NULL, 0, 0);
    }
    pthread_mutex_unlock(&lock);
    return fd;
}

static mode_t mode_argument(int flags, va_list args) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(args, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    REAL(open);
    return opened(real_open(path, flags, mode), AT_FDCWD, path, flags);
}

int open64(const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    REAL(open64);
    return opened(real_open64(path, flags, mode), AT_FDCWD, path, flags);
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    REAL(openat);
    return opened(real_openat(dirfd, path, flags, mode), dirfd, path, flags);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_argument(flags, args);
    va_end(args);
    REAL(openat64);
    return opened(real_openat64(dirfd, path, flags, mode), dirfd, path, flags);
}

int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
    REAL(close);
    if (fd >= 0 && fd < MAX_FDS) {
        pthread_mutex_lock(&lock);
        free(fd_paths[fd]);
        fd_paths[fd] = NULL;
        pthread_mutex_unlock(&lock);
    }
    return real_close(fd);
}

// A write of `done` bytes at `offset` (-1: the descriptor's position before the call).
static void wrote(int fd, long long offset, const struct iovec *iov, int count, ssize_t done) {
    if (done <= 0) return;
    pthread_mutex_lock(&lock);
    const char *path = path_of(fd);
    if (path) {
        if (offset < 0) offset = (long long)lseek(fd, 0, SEEK_CUR) - done;
        record("write", path, NULL, offset, 1, iov, count, (size_t)done);
    }
    pthread_mutex_unlock(&lock);
}

ssize_t write(int fd, const void *data, size_t length) {
    REAL(write);
    ssize_t done = real_write(fd, data, length);
    struct iovec one = {(void *)data, length};
    if (path_of(fd) && (fcntl(fd, F_GETFL) & O_APPEND)) {
        // Appended: where it landed is the end of the file less what was written.
        struct stat st;
        if (done > 0 && fstat(fd, &st) == 0) wrote(fd, (long long)st.st_size - done, &one, 1, done);
        return done;
    }
    wrote(fd, -1, &one, 1, done);
    return done;
}

ssize_t pwrite(int fd, const void *data, size_t length, off_t offset) {
    REAL(pwrite);
    ssize_t done = real_pwrite(fd, data, length, offset);
    struct iovec one = {(void *)data, length};
    wrote(fd, offset, &one, 1, done);
    return done;
}

ssize_t pwrite64(int fd, const void *data, size_t length, off_t offset) {
    REAL(pwrite64);
    ssize_t done = real_pwrite64(fd, data, length, offset);
    struct iovec one = {(void *)data, length};
    wrote(fd, offset, &one, 1, done);
    return done;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    REAL(writev);
    ssize_t done = real_writev(fd, iov, count);
    wrote(fd, -1, iov, count, done);
    return done;
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    REAL(pwritev);
    ssize_t done = real_pwritev(fd, iov, count, offset);
    wrote(fd, offset, iov, count, done);
    return done;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) {
    REAL(pwritev64);
    ssize_t done = real_pwritev64(fd, iov, count, offset);
    wrote(fd, offset, iov, count, done);
    return done;
}

static void fd_event(int fd, const char *op, long long number, int with_number) {
    pthread_mutex_lock(&lock);
    const char *path = path_of(fd);
    if (path) record(op, path, NULL, number, with_number, NULL, 0, 0);
    pthread_mutex_unlock(&lock);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    int result = real_ftruncate(fd, length);
    if (result == 0) fd_event(fd, "trunc", (long long)length, 1);
    return result;
}

int ftruncate64(int fd, off_t length) {
    REAL(ftruncate64);
    int result = real_ftruncate64(fd, length);
    if (result == 0) fd_event(fd, "trunc", (long long)length, 1);
    return result;
}

int fsync(int fd) {
    REAL(fsync);
    int result = real_fsync(fd);
    if (result == 0) fd_event(fd, "sync", 0, 0);
    return result;
}

int fdatasync(int fd) {
    REAL(fdatasync);
    int result = real_fdatasync(fd);
    if (result == 0) fd_event(fd, "sync", 0, 0);
    return result;
}

static void path_event(const char *op, int dirfd, const char *a, int dirfd2, const char *b) {
    pthread_mutex_lock(&lock);
    setup();
    char *first = tracked(dirfd, a), *second = b ? tracked(dirfd2, b) : NULL;
    if (first && (!b || second)) record(op, first, second, 0, 0, NULL, 0, 0);
    free(first);
    free(second);
    pthread_mutex_unlock(&lock);
}

int rename(const char *from, const char *to) {
    REAL(rename);
    int result = real_rename(from, to);
    if (result == 0) path_event("rename", AT_FDCWD, from, AT_FDCWD, to);
    return result;
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
    REAL(renameat);
    int result = real_renameat(fromdir, from, todir, to);
    if (result == 0) path_event("rename", fromdir, from, todir, to);
    return result;
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags) {
    REAL(renameat2);
    int result = real_renameat2(fromdir, from, todir, to, flags);
    if (result == 0) path_event("rename", fromdir, from, todir, to);
    return result;
}

int link(const char *from, const char *to) {
    REAL(link);
    int result = real_link(from, to);
    if (result == 0) path_event("link", AT_FDCWD, from, AT_FDCWD, to);
    return result;
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags) {
    REAL(linkat);
    int result = real_linkat(fromdir, from, todir, to, flags);
    if (result == 0) path_event("link", fromdir, from, todir, to);
    return result;
}

int unlink(const char *path) {
    REAL(unlink);
    int result = real_unlink(path);
    if (result == 0) path_event("unlink", AT_FDCWD, path, 0, NULL);
    return result;
}

int unlinkat(int dirfd, const char *path, int flags) {
    REAL(unlinkat);
    int result = real_unlinkat(dirfd, path, flags);
    if (result == 0) path_event(flags & AT_REMOVEDIR ? "rmdir" : "unlink", dirfd, path, 0, NULL);
    return result;
}

int mkdir(const char *path, mode_t mode) {
    REAL(mkdir);
    int result = real_mkdir(path, mode);
    if (result == 0) path_event("mkdir", AT_FDCWD, path, 0, NULL);
    return result;
}
