/// How the kernel reads a mount's files (docs/spec.md §4 "Two read paths"). The lock is kept on both by
/// invalidation: before a lock, reboot, passcode removal, update or delete returns, every value inode
/// the kernel was served is dropped (``KernelCache``), and every READ that reaches the daemon checks it.
package enum ReadPath: String, Sendable, CaseIterable {
    /// The default: every OPEN reaches the daemon and is checked for its caller (per-application access,
    /// prompts, the audit log); unprotected values are kept in the page cache, values with access
    /// control are read through the daemon (direct_io).
    case gatekeeper
    /// `--kernel-cache`, for read-heavy services: OPEN is answered ENOSYS once, so the kernel never sends
    /// one again and an open costs no round trip. The daemon then cannot tell who opens a file nor buffer
    /// a writer, so the mount is read-only, refuses access rules and an audit log, and refuses reads of
    /// values with access control (no prompt could be attributed).
    case kernelCache = "kernel-cache"
}
