// libfuse 3.14's own API level: older levels hide fuse_loop_mt's config ABI (see docs/reference/fuse-from-swift.md).
#define FUSE_USE_VERSION 314
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <sys/xattr.h>
#include <sys/mount.h>
