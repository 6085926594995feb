// Linux calls Swift cannot reach directly (variadic, or behind _GNU_SOURCE).
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mount.h>
#include <malloc.h>

static inline int keychainfs_set_nondumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
#include <sys/xattr.h>

/* Sixteen FUSE worker threads would otherwise each get a malloc arena: RSS grows with fragmentation. */
static inline void keychainfs_limit_malloc_arenas(void) { mallopt(M_ARENA_MAX, 2); }

/* Returns freed heap memory to the system (after a large listing, the daemon's RSS tracks live data). */
static inline void keychainfs_trim_memory(void) { malloc_trim(0); }

#include <sys/socket.h>
#include <unistd.h>

/* SCM_CREDENTIALS and struct ucred are behind _GNU_SOURCE; the kernel's values. */
#define KEYCHAINFS_SCM_CREDENTIALS 2

/* The sender pids (struct ucred's first field) a received message carries, up to `max`; closes every
   descriptor passed with it (SCM_RIGHTS): the daemon never takes descriptors, and one left open is a leak a
   client could repeat until the daemon runs out. Returns how many pids were stored. */
static inline int keychainfs_message_senders(struct msghdr *message, int *pids, int max) {
    int count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(message); c != NULL; c = CMSG_NXTHDR(message, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SCM_RIGHTS) {
            int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < n; i++) { int fd; __builtin_memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd); close(fd); }
        } else if (c->cmsg_type == KEYCHAINFS_SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(int)) && count < max) {
            __builtin_memcpy(&pids[count++], CMSG_DATA(c), sizeof(int));
        }
    }
    return count;
}

#include <spawn.h>
#include <fcntl.h>
/* glibc (2.34+) has both; its headers declare them only under _GNU_SOURCE. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int pipe2(int fds[2], int flags);

/* A spawned child gets no descriptor from `from` up (the test harness's children: nothing of the test process). */
static inline int keychainfs_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* A pipe whose ends close on exec. */
static inline int keychainfs_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/* A spawned child starts in `path` (git runs in its clone). */
static inline int keychainfs_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
