import Foundation

/// Rebuilds a vault's files as a power cut would leave them, from the log of Tests/PowerCut/iolog.c (the
/// LD_PRELOAD shim; its header describes the records) over a copy of the vault taken before the log began.
///
/// Crash points: just before every fsync/fdatasync and just after every `ack N` record the test appended.
/// Each is rebuilt twice: `synced`, where only what an fsync made durable survives (a file's data as of its
/// last fsync, a directory's names as of its last fsync: the worst a disk may do with writes it was not
/// told to keep), and `prefix`, where every call before the point reached the disk and none after.
struct PowerCutReplay {
    struct State {
        let model: String
        /// Relative path → content.
        let files: [String: Data]
        /// The changes acknowledged before the crash point, in order.
        let acknowledged: [Int]
    }

    private enum Node: Equatable {
        case file(Int)
        case directory(String)
    }

    private let root: String
    private var data: [Int: Data] = [:]
    private var durableData: [Int: Data] = [:]
    private var names: [String: [String: Node]] = [:]
    private var durableNames: [String: [String: Node]] = [:]
    private var nextInode = 0
    /// Counts of the changes applied and of the syncs seen: a state is new only when its count moved.
    private var changes = 0
    private var syncs = 0
    /// Records the model could not apply (a write to a file it never saw made, a rename of a name it does
    /// not hold): the replay fails on any, rather than rebuild a disk poorer than the log says.
    private var unmodelled: [String] = []

    struct Unmodelled: Error, CustomStringConvertible {
        let records: [String]
        var description: String { "the replay could not apply \(records.count) records: \(records.prefix(8))" }
    }

    /// `root`: the vault's directory as the log names it; `baseline`: its files before the log began.
    init(root: String, baseline: [String: Data]) {
        self.root = root
        names[root] = [:]
        for (name, content) in baseline {
            let inode = makeInode(content)
            names[root]![name] = .file(inode)
            durableData[inode] = content
        }
        durableNames = names
    }

    /// Calls `check` with each distinct state of each crash point of `log`; returns the crash points seen.
    static func crashPoints(
        log: Data, root: String, baseline: [String: Data], _ check: (State) throws -> Void
    ) throws -> Int {
        var disk = PowerCutReplay(root: root, baseline: baseline)
        var acknowledged: [Int] = []
        var seen = Set<[Int]>()
        var points = 0
        func crash() throws {
            points += 1
            for model in ["synced", "prefix"] {
                let durable = model == "synced"
                guard seen.insert([durable ? 0 : 1, durable ? disk.syncs : disk.changes, acknowledged.count]).inserted
                else { continue }
                try check(State(model: model, files: disk.files(durable: durable), acknowledged: acknowledged))
            }
        }
        for (op, arguments, payload) in records(log) {
            if op == "ack" {
                acknowledged.append(Int(arguments[0]) ?? -1)
                try crash()
                continue
            }
            if op == "sync" { try crash() }
            disk.apply(op, arguments, payload)
        }
        try crash()
        if !disk.unmodelled.isEmpty { throw Unmodelled(records: disk.unmodelled) }
        return points
    }

    /// The log's records: operation, arguments (unescaped), data.
    static func records(_ log: Data) -> [(String, [String], Data)] {
        var result: [(String, [String], Data)] = []
        var at = log.startIndex
        while at < log.endIndex, let end = log[at...].firstIndex(of: UInt8(ascii: "\n")) {
            let fields = String(decoding: log[at..<end], as: UTF8.self).split(separator: " ").map(String.init)
            let length = Int(fields.last ?? "0") ?? 0
            let start = log.index(after: end)
            let arguments = fields.dropFirst().dropLast().map { $0.removingPercentEncoding ?? $0 }
            result.append((fields[0], Array(arguments), log[start..<start + length]))
            at = start + length
        }
        return result
    }

    private mutating func makeInode(_ content: Data = Data()) -> Int {
        nextInode += 1
        data[nextInode] = content
        return nextInode
    }

    private func split(_ path: String) -> (String, String) {
        let slash = path.lastIndex(of: "/")!
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    private func inode(_ path: String) -> Int? {
        let (directory, name) = split(path)
        if case .file(let inode) = names[directory]?[name] { return inode }
        return nil
    }

    private mutating func apply(_ op: String, _ arguments: [String], _ payload: Data) {
        let path = arguments.first ?? ""
        changes += 1
        if op == "sync" { syncs += 1 }
        switch op {
        case "create":
            let (directory, name) = split(path)
            if names[directory, default: [:]][name] == nil { names[directory, default: [:]][name] = .file(makeInode()) }
        case "mkdir":
            if names[path] == nil { names[path] = [:] }
            let (directory, name) = split(path)
            names[directory, default: [:]][name] = .directory(path)
        case "trunc":
            guard let inode = inode(path), let size = Int(arguments[1]) else {
                return unmodelled.append("trunc \(path)")
            }
            var content = data[inode]!
            if content.count > size {
                content.removeSubrange(size...)
            } else {
                content.append(Data(count: size - content.count))
            }
            data[inode] = content
        case "write":
            guard let inode = inode(path), let offset = Int(arguments[1]) else {
                return unmodelled.append("write \(path)")
            }
            var content = data[inode]!
            if content.count < offset + payload.count {
                content.append(Data(count: offset + payload.count - content.count))
            }
            content.replaceSubrange(offset..<offset + payload.count, with: payload)
            data[inode] = content
        case "sync":
            if let entries = names[path] {
                durableNames[path] = entries
            } else if let inode = inode(path) {
                durableData[inode] = data[inode]
            }
        case "rename", "link":
            let (directory, name) = split(path)
            guard let node = names[directory]?[name] else { return unmodelled.append("\(op) \(path)") }
            let (toDirectory, toName) = split(arguments[1])
            names[toDirectory, default: [:]][toName] = node
            if op == "rename" { names[directory]![name] = nil }
        case "unlink", "rmdir":
            let (directory, name) = split(path)
            names[directory]?[name] = nil
        default:
            unmodelled.append(op)
        }
    }

    /// The files as the disk holds them: only what was made durable, or everything so far.
    private func files(durable: Bool) -> [String: Data] {
        let namespace = durable ? durableNames : names
        var files: [String: Data] = [:]
        func walk(_ directory: String, _ relative: String) {
            for (name, node) in namespace[directory] ?? [:] {
                switch node {
                case .directory(let path): walk(path, relative + name + "/")
                case .file(let inode): files[relative + name] = durable ? durableData[inode] ?? Data() : data[inode]!
                }
            }
        }
        walk(root, "")
        return files
    }
}
