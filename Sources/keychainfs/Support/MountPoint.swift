import Foundation
import KeychainFSFuse

/// Checks and makes the directory a vault is mounted on.
enum MountPoint {
    /// The canonical mount point, created if missing. A live keychainfs mount there is refused; a dead one
    /// (its daemon killed, the kernel answering ENOTCONN) is cleared first, or refused with the way to clear it.
    static func prepare(_ path: String) throws -> String {
        var mountpoint = MountTable.canonical(path)
        if MountTable.isMounted(mountpoint) {
            guard MountTable.isDead(mountpoint) else { throw CLIError("\(mountpoint) is already a keychainfs mount") }
            FuseMount.detach(mountpoint)
            if MountTable.isMounted(mountpoint) {
                throw CLIError(
                    "\(mountpoint) is a dead keychainfs mount (its daemon is gone) and could not be cleared: run 'fusermount3 -u -z \(mountpoint)'"
                )
            }
            FileHandle.standardError.write(
                Data("cleared a dead keychainfs mount at \(mountpoint) (its daemon was gone)\n".utf8))
            mountpoint = MountTable.canonical(path)
        }
        var st = stat()
        if stat(mountpoint, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw CLIError("cannot mount on \(mountpoint): it is not a directory")
            }
        } else {
            do { try FileManager.default.createDirectory(atPath: mountpoint, withIntermediateDirectories: true) } catch
            {
                throw CLIError(
                    "cannot create the mount point \(mountpoint): \((error as NSError).localizedFailureReason ?? String(cString: strerror(errno)))"
                )
            }
        }
        return MountTable.canonical(mountpoint)
    }
}
