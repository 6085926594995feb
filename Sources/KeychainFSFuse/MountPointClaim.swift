import Foundation

/// Makes "no keychainfs mount is here" and the mount one step against another daemon mounting on the same
/// directory at once (two `keychainfs mount` of different vaults both passed the check and stacked): an
/// exclusive flock on the mount point's directory, taken before the check and held until the mount is made.
/// The other daemon then waits for it and sees the mount in the table; one that opens the directory after
/// the mount gets the mount's root, and sees it in the table as well.
struct MountPointClaim: ~Copyable {
    private let fd: Int32

    /// Waits at most `timeout` for another daemon's mount in the making; throws EBUSY when the mount point
    /// is already a keychainfs mount or stays claimed.
    init(_ mountpoint: String, timeout: TimeInterval = 10) throws(FSError) {
        fd = open(mountpoint, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw FSError(errno, "cannot open the mount point \(mountpoint): \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(fd)
                throw FSError(EBUSY, "\(mountpoint) is being mounted by another keychainfs daemon")
            }
            usleep(10_000)
        }
        if MountTable.isMounted(mountpoint) {
            close(fd)
            throw FSError(EBUSY, "\(mountpoint) is already a keychainfs mount")
        }
    }

    /// Ends the claim once the mount is made (or failed): from then on, the mount table answers.
    consuming func end() {}

    deinit { close(fd) }
}
