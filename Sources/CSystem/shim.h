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
