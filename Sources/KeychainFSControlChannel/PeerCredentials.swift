import KeychainFSCSystem
import KeychainFSEngine
import KeychainFSModel
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
