import Foundation
import Testing
import KeychainFSTestSupport

/// The daemon's memory per open `value` (docs/filesystem.md): each open kept its own plaintext copy, so
/// 3,000 descriptors of a 1 MiB value took the daemon to 3.1 GB. Readers of one version share one copy,
/// the memory comes back after they close, and a user's open files (and writers) on the mount are capped (ENFILE).
@Suite(.serialized) struct OpenHandleMemoryTests {
    /// Opens `count` descriptors of `path` in another process (raising its descriptor limit as needed),
    /// reports how many opened and the errno that stopped it, holds them until told, then exits.
    static let holder = """
        import os, resource, sys
        path, count, flags = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        try: resource.setrlimit(resource.RLIMIT_NOFILE, (count + 100, count + 100))
        except (ValueError, OSError): pass
        fds, stopped = [], 0
        for _ in range(count):
            try: fds.append(os.open(path, flags))
            except OSError as e: stopped = e.errno; break
        print(len(fds), stopped, flush=True)
        sys.stdin.readline()
        """

    final class Holder {
        let process = Process(), input = Pipe(), output = Pipe()
        let opened: Int, stopped: Int32

        init(_ path: String, count: Int, flags: Int32 = O_RDONLY) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", OpenHandleMemoryTests.holder, path, String(count), String(flags)]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var line = Data()
            let deadline = Date().addingTimeInterval(120)
            while !line.contains(0x0A) && Date() < deadline && process.isRunning {
                line.append(output.fileHandleForReading.availableData)
            }
            let fields = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            opened = fields.count == 2 ? Int(fields[0]) ?? -1 : -1
            stopped = fields.count == 2 ? Int32(fields[1]) ?? -1 : -1
        }

        /// Closes every descriptor (the process exits) and waits for it.
        func close() {
            input.fileHandleForWriting.write(Data("\n".utf8))
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate() }
        }
    }

    /// The daemon's resident memory in MiB.
    func residentMiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test func readersOfOneValueShareOneCopyAndTheMemoryComesBack() throws {
        let m = try MountedVault()
        defer { m.close() }
        let value = m.makeItem(service: "svc", account: "big") + "/value"
        let secret = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
        #expect(FS.write(value, secret) == 0)
        #expect(FS.read(value) == .success(secret))
        let pid = try #require(m.daemonPID)
        usleep(6_000_000)  // a trim (every 5 s) after the write
        let before = residentMiB(pid)
        let holder = try Holder(value, count: 400)
        #expect(holder.opened == 400)
        let held = residentMiB(pid)
        #expect(held - before < 100, "400 readers of a 1 MiB value: \(before) MiB before, \(held) MiB with them open")
        holder.close()
        #expect(
            m.wait(12) { residentMiB(pid) - before < 48 },
            "the memory comes back: \(before) MiB before, \(residentMiB(pid)) MiB after")
    }

    @Test func aUsersOpenFilesAreCappedWithENFILE() throws {
        let m = try MountedVault()
        defer { m.close() }
        let value = m.makeItem(service: "svc", account: "small") + "/value"
        #expect(FS.write(value, "s") == 0)
        let cap = 16_384
        let holder = try Holder(value, count: cap + 10)
        #expect(
            holder.opened == cap && holder.stopped == ENFILE,
            "opened \(holder.opened), stopped by errno \(holder.stopped)")
        #expect(FS.read(value) == .failure(Errno(ENFILE)), "the cap holds for every process of the user")
        holder.close()
        #expect(m.wait(10) { FS.read(value) == .success(Data("s".utf8)) }, "closing gives the handles back")
    }

    /// Each writer may buffer a whole value: a user holds at most 256 open for writing.
    @Test func aUsersWritersAreCappedWithENFILE() throws {
        let m = try MountedVault()
        defer { m.close() }
        let value = m.makeItem(service: "svc", account: "w") + "/value"
        #expect(FS.write(value, "s") == 0)
        let holder = try Holder(value, count: 300, flags: O_WRONLY)
        #expect(
            holder.opened == 256 && holder.stopped == ENFILE,
            "opened \(holder.opened), stopped by errno \(holder.stopped)")
        #expect(FS.read(value) == .success(Data("s".utf8)), "readers still open")
        holder.close()
        #expect(m.wait(10) { FS.write(value, "t") == 0 }, "closing gives the writers back")
    }
}

/// One decrypted copy per held version. A 1 MiB value rewritten and reopened
/// again and again, each open holding another version, stops at the daemon's per-user bound of decrypted
/// bytes (ENOMEM) instead of growing the daemon by a copy each time; closing gives the bytes back.
@Suite(.serialized) struct HeldVersionMemoryTests {
    @Test(.timeLimit(.minutes(5))) func heldVersionsAreBoundedPerUser() throws {
        let m = try MountedVault()
        let value = m.path("genp/svc/big/value")
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/big"), withIntermediateDirectories: true)
        let versions = 160  // beyond the bound of 128 copies of 1 MiB
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        var refused: Int32 = 0
        for version in 0..<versions {
            try Data(repeating: UInt8(version & 0xFF), count: 1 << 20).write(to: URL(fileURLWithPath: value))
            let fd = open(value, O_RDONLY)
            if fd < 0 { refused = errno; break }
            held.append(fd)
        }
        #expect(refused == ENOMEM, "the opens stopped with ENOMEM, not after \(held.count) versions: \(refused)")
        #expect(held.count <= 128 && held.count >= 100, "\(held.count) versions held")
        let daemon = try #require(m.daemonPID)
        let status = (try? String(contentsOfFile: "/proc/\(daemon)/status", encoding: .utf8)) ?? ""
        let rss =
            (Int(
                status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?.split(whereSeparator: \.isWhitespace)
                    .dropFirst().first ?? "") ?? 0) / 1024
        #expect(rss < 128 + 200, "the daemon holds \(rss) MiB")
        held.forEach { close($0) }
        held.removeAll()
        #expect(
            m.wait(10) {
                let fd = open(value, O_RDONLY)
                if fd >= 0 { close(fd) }
                return fd >= 0
            }, "opens again once closed")
    }
}
