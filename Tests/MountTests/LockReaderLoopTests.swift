import Foundation
import Testing
import KeychainFSTestSupport

/// No read of a secret after `device lock` returns, by any path, under load (docs/spec.md §4): a reader looping
/// flat out in another process across 25 lock/unlock cycles, and a mapping made before the lock. The
/// reader logs a monotonic start, end and outcome for every read; a successful read that started after a
/// lock returned and before the next unlock was issued fails the test. The last test switches the kernel
/// cache invalidation off and shows the mapping test would catch its absence.
@Suite struct LockReaderLoopTests {
    static let secret = "flat-out-secret"

    /// CLOCK_MONOTONIC in seconds (Python's time.monotonic() reads the same clock).
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    func item(_ m: MountedVault) -> String {
        let value = m.makeItem(service: "svc", account: "loop") + "/value"
        #expect(FS.write(value, Self.secret) == 0)
        return value
    }

    @Test func aReaderLoopingFlatOutNeverReadsWhileLocked() throws {
        let m = try MountedVault()
        let value = item(m)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let log = m.root + "/reads.log", stop = m.root + "/stop"
        let reader = """
            import os, sys, time
            value, log, stop, secret = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].encode()
            with open(log, "w") as out:
                deadline = time.monotonic() + 120
                while not os.path.exists(stop) and time.monotonic() < deadline:
                    start = time.monotonic()
                    try:
                        with open(value, "rb") as f: data = f.read()
                        outcome = "secret" if data == secret else "other"
                    except OSError as e:
                        outcome = "errno%d" % e.errno
                    out.write("%.6f %.6f %s\\n" % (start, time.monotonic(), outcome))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", reader, value, log, stop, Self.secret]
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var lockedWindows: [(from: Double, to: Double)] = []
        for _ in 0..<25 { lockedWindows.append(try m.lockWindow(lockedFor: 20_000, settle: 10_000)) }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        #expect(m.wait(10) { !process.isRunning })
        let reads = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
            $0.split(separator: " ")
        }
        #expect(reads.count > 100, "the reader ran flat out: \(reads.count) reads")
        var leaks = 0, refused = 0
        for read in reads where read.count == 3 {
            guard let start = Double(read[0]) else { continue }
            let inWindow = lockedWindows.contains { start > $0.from && start < $0.to }
            if inWindow && read[2] == "secret" { leaks += 1 }
            if inWindow && read[2] == "errno\(EACCES)" { refused += 1 }
            #expect(read[2] == "secret" || read[2] == "errno\(EACCES)", "only the secret or EACCES: \(read[2])")
        }
        #expect(leaks == 0, "reads that started while locked returned the secret")
        #expect(refused > 0, "the reader did run while locked")
    }

    /// Maps `value` (MAP_PRIVATE, read-only) before the lock and touches it after: the bytes, or a signal.
    func mappedReadAfterLock(_ m: MountedVault, _ value: String) throws -> (status: Int32, stdout: String) {
        let script = """
            import mmap, os, sys
            with open(sys.argv[1], "rb") as f:
                mapping = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
            print(mapping[:].decode(), flush=True)
            sys.stdin.readline()
            print(mapping[:].decode(), flush=True)
            """
        // The script waits on stdin between its two reads; the lock happens in between.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, value]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        var first = Data()
        let deadline = Date().addingTimeInterval(10)
        while !first.contains(0x0A) && Date() < deadline { first.append(output.fileHandleForReading.availableData) }
        try expectSuccess(m.device("lock"))
        input.fileHandleForWriting.write(Data("\n".utf8))
        if done.wait(timeout: .now() + 10) == .timedOut { process.terminate() }
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: first + rest, as: UTF8.self))
    }

    @Test func aMappingMadeBeforeTheLockReadsNothingAfterIt() throws {
        let m = try MountedVault()
        let value = item(m)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let result = try mappedReadAfterLock(m, value)
        #expect(result.stdout == Self.secret + "\n", "one read before the lock, none after: \(result.stdout)")
        #expect(result.status == SIGBUS, "touching the mapping after the lock faults")
    }

    @Test func withoutInvalidationTheMappingLeaks() throws {
        let m = try MountedVault(mountEnvironment: [LockGuardsName.variable: "invalidate-kernel-cache"])
        let value = item(m)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let result = try mappedReadAfterLock(m, value)
        #expect(result.stdout == Self.secret + "\n" + Self.secret + "\n", "the test above would fail without the guard")
    }
}
