// A libfuse worker loop that screens out self-renames (see guarded_loop.h).
#define FUSE_USE_VERSION 314
#include "guarded_loop.h"

#include <errno.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The kernel's request and reply headers (linux/fuse.h, a stable ABI), declared here so this file does
// not mix the kernel's header with libfuse's.
struct in_header { uint32_t len, opcode; uint64_t unique, nodeid; uint32_t uid, gid, pid; uint16_t total_extlen, padding; };
struct out_header { uint32_t len; int32_t error; uint64_t unique; };
enum { OP_RENAME = 12, OP_RENAME2 = 45, RENAME_IN_SIZE = 8, RENAME2_IN_SIZE = 16 };

struct loop {
    struct fuse_session *se;
    sem_t finished;
};

/// Whether the request in `buf` renames an entry onto itself; if so, answers it ENOENT.
static int answered_self_rename(struct fuse_session *se, const struct fuse_buf *buf, size_t size) {
    if ((buf->flags & FUSE_BUF_IS_FD) || size < sizeof(struct in_header)) return 0;
    const struct in_header *in = buf->mem;
    size_t fixed;
    if (in->opcode == OP_RENAME) fixed = RENAME_IN_SIZE;
    else if (in->opcode == OP_RENAME2) fixed = RENAME2_IN_SIZE;
    else return 0;
    size_t length = in->len < size ? in->len : size;
    if (length < sizeof(struct in_header) + fixed) return 0;
    const char *body = (const char *)buf->mem + sizeof(struct in_header);
    uint64_t newdir;
    memcpy(&newdir, body, sizeof newdir);
    const char *names = body + fixed, *end = (const char *)buf->mem + length;
    const char *old_end = memchr(names, 0, (size_t)(end - names));
    if (!old_end) return 0;
    const char *new_name = old_end + 1;
    const char *new_end = new_name < end ? memchr(new_name, 0, (size_t)(end - new_name)) : NULL;
    if (!new_end || newdir != in->nodeid || strcmp(names, new_name) != 0) return 0;
    struct out_header out = { sizeof out, -ENOENT, in->unique };
    while (write(fuse_session_fd(se), &out, sizeof out) < 0 && errno == EINTR) {}
    return 1;
}

static void *work(void *arg) {
    struct loop *loop = arg;
    struct fuse_buf buf = { .mem = NULL };
    while (!fuse_session_exited(loop->se)) {
        // Cancellation only while waiting for a request, never while one is being served (as libfuse).
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        int res = fuse_session_receive_buf(loop->se, &buf);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (res == -EINTR) continue;
        if (res <= 0) {
            if (res < 0) fuse_session_exit(loop->se);
            break;
        }
        if (!answered_self_rename(loop->se, &buf, (size_t)res)) fuse_session_process_buf(loop->se, &buf);
    }
    free(buf.mem);
    sem_post(&loop->finished);
    return NULL;
}

int keychainfs_guarded_loop(struct fuse *f, int threads) {
    struct loop loop = { .se = fuse_get_session(f) };
    sem_init(&loop.finished, 0, 0);
    pthread_t *workers = calloc((size_t)threads, sizeof *workers);
    if (!workers) return -ENOMEM;
    int started = 0;
    for (; started < threads; started++) {
        if (pthread_create(&workers[started], NULL, work, &loop) != 0) break;
    }
    int result = started == 0 ? -EAGAIN : 0;
    if (started > 0) {
        // One worker ending (exit requested, or the mount gone) ends the loop: the others may be
        // blocked reading /dev/fuse, where cancellation reaches them.
        while (sem_wait(&loop.finished) < 0 && errno == EINTR) {}
        for (int i = 0; i < started; i++) pthread_cancel(workers[i]);
        for (int i = 0; i < started; i++) pthread_join(workers[i], NULL);
    }
    free(workers);
    sem_destroy(&loop.finished);
    return result;
}
