import Foundation
import Testing
import KeychainFSTestSupport

/// The side entrances of a held descriptor against the lock (docs/filesystem.md, "Mappings"), on both read paths:
/// MAP_SHARED and MAP_PRIVATE mappings made while unlocked, `splice` and `sendfile` from the descriptor, a
/// fresh mapping of it and `pread`. They read the page cache, which the daemon only sees fill through
/// READ; a page refilled after one device change must still be dropped at the next lock. A reader in
/// another process loops over every mode while the device locks and unlocks (and, in the second test,
/// the value is rotated before each lock); a read that started inside a locked window and got a secret
/// fails the test. On the default path a descriptor held open read-write takes part too. The last tests
/// switch the invalidation and the writer wipe off and show these tests can fail.
@Suite struct MappedReadLockTests {
    static let readPaths = ["gatekeeper", "kernel-cache"]
    /// "direct-private": a value longer than a page, which the default path reads with direct_io; a private
    /// mapping of it still fills the page cache through READ.
    static let modes = [
        "shared", "private", "fresh-shared", "fresh-private", "splice", "sendfile", "pread", "direct-private",
    ]
    /// A descriptor opened read-write (whose buffer holds the secret it opened) read with `pread`: on the
    /// default path only, since a kernel-cache mount is read-only.
    static func modes(_ readPath: String) -> [String] { readPath == "gatekeeper" ? modes + ["read-write"] : modes }
    /// Every secret has this prefix and the same length, so the mappings cover all of a rotated value.
    static func secret(_ version: Int) -> String { String(format: "secret-%03d", version) }
    static let directBytes = 5000
    static func value(_ version: Int, of mode: String) -> String {
        mode == "direct-private"
            ? secret(version) + String(repeating: "x", count: directBytes - secret(version).utf8.count)
            : secret(version)
    }

    struct Read { let start: Double, mode: String, outcome: String }

    /// One item per mode, so that no mode's requests (an fstat's GETATTR, a pread's size check) note
    /// another's inode; held descriptors and mappings made once, while unlocked, then each touched in
    /// turn, flat out. Mappings are made with libc's mmap (Python's calls fstat) and touched in a forked
    /// child, since a fault (SIGBUS) kills the toucher.
    static let reader = """
        import ctypes, mmap, os, select, signal, socket, sys, time
        items, log, stop, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        fds = {mode: os.open(items + "/" + mode + "/value", os.O_RDWR if mode == "read-write" else os.O_RDONLY)
               for mode in sys.argv[5:]}
        def mapped(fd, flags, length=size):
            address = libc.mmap(None, length, mmap.PROT_READ, flags, fd, 0)
            if address is None or address == 2**64 - 1: raise OSError(ctypes.get_errno(), "mmap")
            return address
        shared = mapped(fds["shared"], mmap.MAP_SHARED)
        private = mapped(fds["private"], mmap.MAP_PRIVATE)
        direct = mapped(fds["direct-private"], mmap.MAP_PRIVATE, \(directBytes))
        def outcome(body):
            try: return body()
            except OSError as e: return b"errno%d" % e.errno
            except Exception as e: return type(e).__name__.encode()
        def in_child(body):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r); os.write(w, outcome(body)); os._exit(0)
            os.close(w)
            if not select.select([r], [], [], 10)[0]: os.kill(pid, signal.SIGKILL)
            data = b""
            while True:
                chunk = os.read(r, 4096)
                if not chunk: break
                data += chunk
            os.close(r)
            status = os.waitpid(pid, 0)[1]
            return b"signal%d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else data
        def spliced():
            r, w = os.pipe()
            try:
                n = os.splice(fds["splice"], w, size, offset_src=0)
                return os.read(r, n) if n else b"empty"
            finally: os.close(r); os.close(w)
        def sent():
            a, b = socket.socketpair()
            try:
                n = os.sendfile(a.fileno(), fds["sendfile"], 0, size)
                return b.recv(n) if n else b"empty"
            finally: a.close(); b.close()
        def fresh(mode, flags):
            return lambda: ctypes.string_at(mapped(fds[mode], flags), size)
        modes = {
            "shared": lambda: in_child(lambda: ctypes.string_at(shared, size)),
            "private": lambda: in_child(lambda: ctypes.string_at(private, size)),
            "fresh-shared": lambda: in_child(fresh("fresh-shared", mmap.MAP_SHARED)),
            "fresh-private": lambda: in_child(fresh("fresh-private", mmap.MAP_PRIVATE)),
            "splice": lambda: outcome(spliced),
            "sendfile": lambda: outcome(sent),
            "pread": lambda: outcome(lambda: os.pread(fds["pread"], size, 0) or b"empty"),
            "direct-private": lambda: in_child(lambda: ctypes.string_at(direct, \(directBytes))),
            "read-write": lambda: outcome(lambda: os.pread(fds["read-write"], size, 0) or b"empty"),
        }
        modes = {mode: body for mode, body in modes.items() if mode in fds}
        with open(log, "w") as out:
            deadline = time.monotonic() + 120
            while not os.path.exists(stop) and time.monotonic() < deadline:
                for mode, body in modes.items():
                    start = time.monotonic()
                    got = body()[:40].decode(errors="replace").replace("\\n", " ")
                    out.write("%.6f %s %s\\n" % (start, mode, got))
                    out.flush()
        """

    /// A vault holding genp/svc/<mode> = secret 0 for every mode (unprotected, so page-cached on the
    /// default path), passcode 1234, unlocked, mounted on `readPath` (items are made on a gatekeeper mount:
    /// a kernel-cache mount is read-only).
    func mounted(_ readPath: String, environment: [String: String]? = nil) throws -> MountedVault {
        let m = try MountedVault(
            mountArguments: ["--default-accessible", "ak"],
            mountEnvironment: readPath == "gatekeeper" ? environment : nil)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for mode in Self.modes(readPath) {
            #expect(FS.mkdir(m.path("genp/svc/\(mode)")) == 0)
            #expect(FS.write(m.path("genp/svc/\(mode)/value"), Self.value(0, of: mode)) == 0)
        }
        if readPath == "kernel-cache" {
            m.unmount()
            try expectSuccess(m.remount(["--kernel-cache"], environment: environment))
            try expectSuccess(m.device("unlock", passcode: "1234"))  // a daemon start is a boot
        }
        return m
    }

    /// Runs the reader on `value` while `cycles` events run, each returning a window in which no read may
    /// start and get a secret; returns the reads and the reads that did.
    func reads(
        _ m: MountedVault, _ readPath: String, cycles: Int,
        event: (Int) throws -> (Double, Double)
    ) throws -> (reads: [Read], leaks: [Read]) {
        let log = m.root + "/mapped-reads.log", stop = m.root + "/mapped-stop"
        try? FileManager.default.removeItem(atPath: stop)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            ["-c", Self.reader, m.path("genp/svc"), log, stop, String(Self.secret(0).utf8.count)]
            + Self.modes(readPath)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        usleep(300_000)
        var windows: [(Double, Double)] = []
        for cycle in 0..<cycles { windows.append(try event(cycle)) }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        #expect(m.wait(20) { !process.isRunning }, "the reader stops")
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        let reads = lines.compactMap { line -> Read? in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let start = Double(fields[0]) else { return nil }
            return Read(start: start, mode: String(fields[1]), outcome: String(fields[2]))
        }
        let locked = reads.filter { read in windows.contains { read.start > $0.0 && read.start < $0.1 } }
        for mode in Self.modes(readPath) {
            #expect(locked.contains { $0.mode == mode }, "\(mode) was tried while locked")
        }
        return (reads, locked.filter { $0.outcome.hasPrefix("secret-") })
    }

    /// Locks, waits in the locked window, unlocks, and leaves the reader time to refill its pages.
    func lockCycle(_ m: MountedVault) throws -> (Double, Double) { try m.lockWindow(lockedFor: 60_000, settle: 60_000) }

    func expectEveryModeRan(_ reads: [Read], _ readPath: String) {
        for mode in Self.modes(readPath) {
            #expect(
                reads.contains { $0.mode == mode && $0.outcome.hasPrefix("secret-") },
                "\(mode) read the secret while unlocked")
        }
    }

    func report(_ leaks: [Read]) -> String {
        Dictionary(grouping: leaks, by: \.mode).map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", ")
    }

    @Test(arguments: readPaths) func mappingsSpliceAndSendfileReadNothingAcrossLockCycles(readPath: String) throws {
        let m = try mounted(readPath)
        let result = try reads(m, readPath, cycles: 8) { _ in try lockCycle(m) }
        expectEveryModeRan(result.reads, readPath)
        #expect(result.leaks.count == 0, "reads that started while locked got the secret: \(report(result.leaks))")
    }

    @Test(arguments: readPaths) func aRotationThenALockLeavesNothingReadable(readPath: String) throws {
        let m = try mounted(readPath)
        let result = try reads(m, readPath, cycles: 6) { cycle in
            for mode in Self.modes(readPath) {
                try expectSuccess(
                    m.cli([
                        "add-generic-password", "-U", "-s", "svc", "-a", mode, "-w", Self.value(cycle + 1, of: mode),
                        m.vault,
                    ]))
            }
            usleep(60_000)
            return try lockCycle(m)
        }
        expectEveryModeRan(result.reads, readPath)
        #expect(result.reads.contains { $0.outcome == Self.secret(6) }, "the last rotation was read")
        #expect(result.leaks.count == 0, "reads that started while locked got a secret: \(report(result.leaks))")
    }

    /// With the invalidation switched off (a test device only), the mappings of the default path keep the
    /// secret through the lock: the tests above can fail.
    @Test func withoutInvalidationTheMappingsReadTheSecretWhileLocked() throws {
        let m = try mounted("gatekeeper", environment: [LockGuardsName.variable: "invalidate-kernel-cache"])
        let result = try reads(m, "gatekeeper", cycles: 4) { _ in try lockCycle(m) }
        #expect(
            result.leaks.contains { $0.mode == "shared" } && result.leaks.contains { $0.mode == "private" },
            "without invalidation, the mappings read the secret while locked: \(report(result.leaks))")
    }

    /// With the writer wipe switched off (a test device only), the held read-write descriptor reads the
    /// secret from its buffer while locked: its part in the tests above can fail.
    @Test func withoutTheWriterWipeAHeldReadWriteDescriptorReadsWhileLocked() throws {
        let m = try mounted("gatekeeper", environment: [LockGuardsName.variable: "wipe-writers"])
        let result = try reads(m, "gatekeeper", cycles: 4) { _ in try lockCycle(m) }
        #expect(
            result.leaks.contains { $0.mode == "read-write" },
            "without the wipe, the read-write descriptor reads the secret while locked: \(report(result.leaks))")
    }
}
