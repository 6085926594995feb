import Foundation
import Testing
import KeychainFSTestSupport

/// Both read paths of docs/spec.md §4 against every event after which a secret must not be read: `device lock`,
/// `reboot` (a ck item), an update, a delete and `passcode remove` (an akpu item). A reader loops flat out
/// in another process and logs a monotonic start, end and outcome per read; a read that started after
/// the event returned and got the old secret fails the test. The page cache is in play on both paths
/// (gatekeeper: unprotected values; kernel-cache: every open), so only the daemon's invalidation keeps
/// these tests green: the last test switches it off and shows the reader then gets the secret.
@Suite struct ReadPathLockTests {
    static let readPaths = ["gatekeeper", "kernel-cache"]

    /// A vault holding genp/svc/loop = `secret` (accessibility `accessible`), passcode 1234, unlocked,
    /// mounted on `readPath`. Items are made on a gatekeeper mount: a kernel-cache mount is read-only.
    func mounted(
        _ readPath: String, accessible: String = "ak", secret: String = "v0",
        environment: [String: String]? = nil
    ) throws -> (m: MountedVault, value: String) {
        let m = try MountedVault(
            mountArguments: ["--default-accessible", accessible],
            mountEnvironment: readPath == "gatekeeper" ? environment : nil)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))  // before the item: akpu needs one
        let value = m.makeItem(service: "svc", account: "loop") + "/value"
        #expect(FS.write(value, secret) == 0)
        if readPath == "kernel-cache" {
            m.unmount()
            try expectSuccess(m.remount(["--kernel-cache"], environment: environment))
            try expectSuccess(m.device("unlock", passcode: "1234"))  // a daemon start is a boot
        }
        #expect(FS.read(value) == .success(Data(secret.utf8)))
        return (m, value)
    }

    /// One logged read: when it started and ended (CLOCK_MONOTONIC) and what it got ("errnoN" or the bytes).
    struct Read { let start: Double, outcome: String }

    /// Runs a reader of `value` flat out while `events` runs, and returns its reads.
    func readFlatOut(_ m: MountedVault, _ value: String, during events: () throws -> Void) throws -> [Read] {
        let log = m.root + "/reads.log", stop = m.root + "/stop"
        let reader = """
            import os, sys, time
            value, log, stop = sys.argv[1], sys.argv[2], sys.argv[3]
            with open(log, "w") as out:
                deadline = time.monotonic() + 120
                while not os.path.exists(stop) and time.monotonic() < deadline:
                    start = time.monotonic()
                    try:
                        with open(value, "rb") as f: outcome = f.read().decode()
                    except OSError as e:
                        outcome = "errno%d" % e.errno
                    out.write("%.6f %.6f %s\\n" % (start, time.monotonic(), outcome))
            """
        try? FileManager.default.removeItem(atPath: stop)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", reader, value, log, stop]
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        usleep(50_000)
        try events()
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        #expect(m.wait(10) { !process.isRunning })
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count >= 2, let start = Double(fields[0]) else { return nil }
            return Read(start: start, outcome: fields.count == 3 ? String(fields[2]) : "")
        }
    }

    /// `events` repeated `cycles` times, each returning the window (from its return to the end of the
    /// danger) in which no read may start and get `forbidden`; returns the reads that did, and all reads.
    func leaks(
        _ m: MountedVault, _ value: String, cycles: Int, forbidden: (Int) -> Set<String>,
        event: (Int) throws -> (Double, Double)
    ) throws -> (leaks: [Read], reads: [Read], windows: [(Double, Double, Int)]) {
        var windows: [(Double, Double, Int)] = []
        let reads = try readFlatOut(m, value) {
            for cycle in 0..<cycles { let (from, to) = try event(cycle); windows.append((from, to, cycle)) }
        }
        let leaked = reads.filter { read in
            windows.contains { read.start > $0.0 && read.start < $0.1 && forbidden($0.2).contains(read.outcome) }
        }
        return (leaked, reads, windows)
    }

    static func now() -> Double { LockReaderLoopTests.now() }

    /// 25 lock/unlock cycles: no read that started while locked gets the secret.
    func lockCycles(_ m: MountedVault, _ value: String) throws -> (
        leaks: [Read], reads: [Read], windows: [(Double, Double, Int)]
    ) {
        try leaks(m, value, cycles: 25, forbidden: { _ in ["v0"] }) { _ in
            try m.lockWindow(lockedFor: 20_000, settle: 10_000)
        }
    }

    @Test(arguments: readPaths) func lockEndsEveryRead(readPath: String) throws {
        let (m, value) = try mounted(readPath)
        let result = try lockCycles(m, value)
        #expect(result.reads.count > 100, "the reader ran flat out: \(result.reads.count) reads")
        #expect(result.leaks.isEmpty, "\(result.leaks.count) reads that started while locked got the secret")
        let refused = result.reads.filter { r in
            result.windows.contains { r.start > $0.0 && r.start < $0.1 } && r.outcome == "errno\(EACCES)"
        }
        #expect(!refused.isEmpty, "the reader did run while locked")
        #expect(result.reads.allSatisfy { $0.outcome == "v0" || $0.outcome == "errno\(EACCES)" })
    }

    @Test(arguments: readPaths) func rebootEndsReadsOfAfterFirstUnlockItems(readPath: String) throws {
        let (m, value) = try mounted(readPath, accessible: "ck")
        let result = try leaks(m, value, cycles: 10, forbidden: { _ in ["v0"] }) { _ in
            try expectSuccess(m.device("reboot"))
            let rebooted = Self.now()
            usleep(20_000)
            let unlocking = Self.now()
            try expectSuccess(m.device("unlock", passcode: "1234"))
            usleep(10_000)
            return (rebooted, unlocking)
        }
        #expect(result.leaks.isEmpty, "\(result.leaks.count) reads that started before the first unlock got the secret")
        #expect(
            result.reads.contains { $0.outcome == "v0" } && result.reads.contains { $0.outcome == "errno\(EACCES)" })
    }

    /// Each update i writes v(i+1); a read that started after it returned gets v(i+1) or later.
    /// The update is a new secret with the item's own attributes restated (`-U`): a change of secrets, on
    /// which the mount keeps the item's dentry and drops its pages and attributes.
    @Test(arguments: readPaths) func anUpdateEndsReadsOfTheOldValue(readPath: String) throws {
        let (m, value) = try mounted(readPath)
        let result = try updates(m, value, cycles: 25)
        #expect(
            result.leaks.isEmpty,
            "reads that started after an update got an older value: \(result.leaks.prefix(3).map(\.outcome))")
        #expect(result.reads.contains { $0.outcome == "v25" }, "the last value was read")
    }

    /// `cycles` updates of the value through the CLI, each writing v(i+1), under a reader looping flat out.
    func updates(_ m: MountedVault, _ value: String, cycles: Int) throws
        -> (leaks: [Read], reads: [Read], windows: [(Double, Double, Int)])
    {
        try leaks(m, value, cycles: cycles, forbidden: { cycle in Set((0...cycle).map { "v\($0)" }) }) { cycle in
            try expectSuccess(
                m.cli(["add-generic-password", "-U", "-s", "svc", "-a", "loop", "-w", "v\(cycle + 1)", m.vault]))
            let updated = Self.now()
            usleep(15_000)
            return (updated, .infinity)
        }
    }

    /// One event after which the item is gone (ENOENT): no read that started after it returned gets the secret.
    func readsEnd(
        _ readPath: String, accessible: String = "ak", after what: String, _ event: (MountedVault) throws -> Void
    ) throws {
        let (m, value) = try mounted(readPath, accessible: accessible)
        let result = try leaks(m, value, cycles: 1, forbidden: { _ in ["v0"] }) { _ in
            usleep(50_000)
            try event(m)
            let done = Self.now()
            usleep(50_000)
            return (done, .infinity)
        }
        #expect(result.leaks.isEmpty, "\(result.leaks.count) reads that started after \(what) got the secret")
        #expect(
            result.reads.contains { $0.outcome == "v0" } && result.reads.contains { $0.outcome == "errno\(ENOENT)" })
    }

    @Test(arguments: readPaths) func aDeleteEndsReads(readPath: String) throws {
        try readsEnd(readPath, after: "the delete") { m in
            try expectSuccess(m.cli(["delete-generic-password", "-s", "svc", "-a", "loop", m.vault]))
        }
    }

    @Test(arguments: readPaths) func passcodeRemovalEndsReadsOfPasscodeOnlyItems(readPath: String) throws {
        try readsEnd(readPath, accessible: "akpu", after: "the passcode's removal (an akpu item)") { m in
            try expectSuccess(m.device("passcode", "remove", passcode: "1234"))
        }
    }

    /// A descriptor opened and read before the lock (its page cached) reads nothing after it; a mapping
    /// made before the lock faults.
    @Test(arguments: readPaths) func heldDescriptorsAndMappingsReadNothingAfterTheLock(readPath: String) throws {
        let (m, value) = try mounted(readPath)
        let fd = open(value, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(pread(fd, &buffer, 64, 0) == 2)
        let mapped = try LockReaderLoopTests().mappedReadAfterLock(m, value)  // locks the device
        #expect(mapped.stdout == "v0\n" && mapped.status == SIGBUS, "a mapping made before the lock faults after it")
        #expect(pread(fd, &buffer, 64, 0) == -1 && errno == EACCES, "a descriptor held across the lock reads nothing")
        #expect(FS.read(value) == .failure(Errno(EACCES)))
    }

    /// With the invalidation switched off (a test device only), the kernel-cache path serves the locked
    /// secret from the page cache to a fresh open: the tests above can fail.
    /// With the invalidation switched off, the kernel-cache path serves the old value after an update:
    /// ``anUpdateEndsReadsOfTheOldValue(readPath:)`` can fail.
    @Test func withoutInvalidationReadsAfterAnUpdateGetTheOldValue() throws {
        let (m, value) = try mounted("kernel-cache", environment: [LockGuardsName.variable: "invalidate-kernel-cache"])
        let result = try updates(m, value, cycles: 3)
        #expect(!result.leaks.isEmpty, "without invalidation, reads after an update get the old value")
    }

    @Test func withoutInvalidationTheReaderLoopGetsTheSecretWhileLocked() throws {
        let (m, value) = try mounted("kernel-cache", environment: [LockGuardsName.variable: "invalidate-kernel-cache"])
        let result = try lockCycles(m, value)
        #expect(!result.leaks.isEmpty, "without invalidation, reads while locked get the cached secret")
    }
}
