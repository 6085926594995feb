// Linux calls Swift cannot reach directly (variadic, or behind _GNU_SOURCE).
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mount.h>

static inline int keychainfs_set_nondumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
#include <sys/xattr.h>
