import KeychainFSModel
import Foundation

/// The vault directory's ownership and mode: only its owner may be able to create names in it, or a
/// planted symlink could redirect the vault's writes (or SQLite's) to any file the owner can write.
package enum VaultDirectory {
    /// Makes `path` a private (0700) directory for a new vault: created, or an existing directory of ours
    /// made 0700. A directory of another user, or one others could write that already holds files, is refused.
    package static func makePrivate(_ path: String) throws(KeychainError) {
        let parent = (path as NSString).deletingLastPathComponent
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot create \(parent): \(error.localizedDescription)")
        }
        // The new directory's entry is synced with its parent: the vault's first files survive a power cut
        // (not a simulated device's throwaway one).
        if mkdir(path, 0o700) == 0 {
            if !ThrowawayDirectories.contains(fileAt: path + "/vault.json") { try FileIO.syncDirectory(of: path) }
            return
        }
        guard errno == EEXIST else {
            throw KeychainError(SecStatus.notAvailable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw .param("\(path) exists and is not a directory")
        }
        guard st.st_uid == geteuid() else {
            throw .param("\(path) belongs to another user: a vault directory must be your own")
        }
        let othersCouldWrite = st.st_mode & 0o022 != 0
        guard chmod(path, 0o700) == 0 else {
            throw KeychainError(
                SecStatus.notAvailable, "cannot make \(path) private (chmod 700): \(String(cString: strerror(errno)))")
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if othersCouldWrite && !entries.isEmpty {
            throw .param(
                "\(path) was writable by other users and is not empty: anything in it may have been planted; use a new directory"
            )
        }
    }

    /// Refuses a vault directory that is not ours or that others can write to.
    package static func checkPrivate(_ path: String) throws(KeychainError) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }  // missing: the caller's own read reports it
        guard st.st_uid == geteuid() else {
            throw KeychainError(
                SecStatus.notAvailable, "\(path) belongs to another user: keychainfs opens only your own vaults")
        }
        guard st.st_mode & 0o022 == 0 else {
            throw KeychainError(
                SecStatus.notAvailable,
                "\(path) is writable by other users (mode \(String(st.st_mode & 0o7777, radix: 8))): make it private with 'chmod 700 \(path)'"
            )
        }
    }

    /// Refuses anything but a regular file of ours at `path` (missing is fine).
    package static func checkRegularFile(_ path: String) throws(KeychainError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid() else {
            // SQLite would open a FIFO here and block: it is named, not opened (docs/security.md).
            let what = st.st_mode & S_IFMT == S_IFREG ? "another user's file" : FileIO.kind(st.st_mode)
            throw KeychainError(
                SecStatus.notAvailable,
                "\(path) is \(what), not a regular file of yours: keychainfs will not open the vault through it")
        }
    }
}

extension VaultDirectory {
    /// Makes the device-key directory (and its parents) if missing; the directory itself is made 0700.
    package static func makePrivateStateDirectory(_ path: String) throws(KeychainError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot create \(path): \(error.localizedDescription)")
        }
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, st.st_uid == geteuid() else {
            throw KeychainError(
                SecStatus.notAvailable, "\(path) is not a directory of yours: device keys are not written there")
        }
        if st.st_mode & 0o077 != 0 { chmod(path, 0o700) }
    }
}
