import Foundation

/// What a process runs, as the daemon's mount namespace sees it: the executed file's device and inode
/// (through `/proc/PID/exe`, whatever path or namespace it was started from) and the process's start time
/// (so a recycled pid is another process). A transport takes it when it first sees a peer (a control
/// connection accepted, a bus name appearing) and every call compares it again (``PeerProcess``): a
/// process that executed another program since, or a pid now held by another process, is refused.
public struct ExecutableStamp: Hashable, Sendable {
    public let executable: FileIdentity
    public let startTime: UInt64

    /// What process `pid` runs now; nil once it has gone (or for a process whose /proc cannot be read).
    public init?(pid: Int32) {
        guard let executable = FileIdentity(path: "/proc/\(pid)/exe"), let start = Self.startTime(of: pid) else {
            return nil
        }
        self.executable = executable
        startTime = start
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks since boot), read after the `)` that ends the command name.
    static func startTime(of pid: Int32) -> UInt64? {
        ProcStat(pid: pid).flatMap { $0.field(22) }.flatMap { UInt64($0) }
    }
}

/// `/proc/PID/stat`, split after the `)` that ends the command name (which may hold spaces and parentheses).
public struct ProcStat: Sendable {
    private let fields: [Substring]

    public init?(pid: Int32) {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0, let close = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        fields = String(decoding: buffer[(close + 1)..<n], as: UTF8.self).split(separator: " ")
    }

    /// Field `number` as proc(5) numbers them (3: the state, 22: the start time); nil past the end.
    public func field(_ number: Int) -> String? {
        let index = number - 3
        return fields.indices.contains(index) ? String(fields[index]) : nil
    }

    /// The state letter: `R`, `S`, `D`, `T` (stopped by a signal), `t` (stopped by a tracer), `Z`…
    public var state: String? { field(3) }
}
