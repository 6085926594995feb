#ifndef KEYCHAINFS_GUARDED_LOOP_H
#define KEYCHAINFS_GUARDED_LOOP_H

struct fuse;

/// Serves `f` with `threads` workers until the session exits or the mount goes away, like libfuse's
/// fuse_loop_mt, except that a RENAME whose source and target are the same directory entry is answered
/// ENOENT before libfuse's high-level path locking sees it. The kernel only sends one when its source
/// dentry is stale (the name now names nothing, or another inode), and libfuse 3's get_path2 would
/// lock that node twice and wait for itself forever (lib/fuse.c: "locking two paths needs deadlock
/// checking"), leaving the caller in D state. Returns 0, or -errno if no worker could start.
int keychainfs_guarded_loop(struct fuse *f, int threads);

#endif
