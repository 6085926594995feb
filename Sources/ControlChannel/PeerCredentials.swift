import CSystem
import KeychainEngine
import KeychainModel
import Foundation

/// The kernel's word on who is at the other end of a control connection.
enum PeerCredentials {
    /// `struct ucred` (hidden behind _GNU_SOURCE in Glibc's module).
    private struct Ucred { var pid: Int32 = 0; var uid: UInt32 = 0; var gid: UInt32 = 0 }
    static let soPassCred: Int32 = 16
    private static let soPeerCred: Int32 = 17

    /// SO_PEERCRED: the process that connected and its uid, as they were at connect().
    static func connector(of connection: Int32) -> (pid: Int32, uid: UInt32)? {
        var credentials = Ucred()
        var length = socklen_t(MemoryLayout<Ucred>.size)
        guard getsockopt(connection, SOL_SOCKET, soPeerCred, &credentials, &length) == 0, credentials.pid > 0 else {
            return nil
        }
        return (credentials.pid, credentials.uid)
    }

    /// The pids of the processes that sent a received message's bytes (SCM_CREDENTIALS); closes any
    /// descriptors passed with it.
    static func senders(in message: inout msghdr) -> [Int32] {
        var pids = [Int32](repeating: 0, count: 4)
        let count = pids.withUnsafeMutableBufferPointer {
            keychainfs_message_senders(&message, $0.baseAddress, Int32($0.count))
        }
        return Array(pids.prefix(Int(count)))
    }
}

/// What a process runs, as the daemon's mount namespace sees it: the executed file's device and inode
/// (through `/proc/PID/exe`, whatever path or namespace it was started from) and the process's start time
/// (so a recycled pid is another process). Taken when a connection is accepted and again when its request
/// and its reply are handled: a process that executed another program since it connected, or a request
/// written by another process than the one that connected (a child, a descriptor passed on), is refused.
struct ExecutableStamp: Equatable {
    let executable: FileIdentity
    let startTime: UInt64

    init?(pid: Int32) {
        guard let executable = FileIdentity(path: "/proc/\(pid)/exe"), let start = Self.startTime(of: pid) else {
            return nil
        }
        self.executable = executable
        startTime = start
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks since boot), read after the `)` that ends the command name.
    private static func startTime(of pid: Int32) -> UInt64? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0, let close = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<n].split(separator: UInt8(ascii: " "))
        // After ")" come field 3 (state) onwards: the start time, field 22, is the 20th of them.
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }
}
