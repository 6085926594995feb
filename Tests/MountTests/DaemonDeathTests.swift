import Foundation
import Testing
import KeychainFSTestSupport

/// After any death of the daemon the mount goes away and a remount works (docs/filesystem.md, "Mount behaviour"). A
/// `kill -9` while a daemon thread waits in the kernel to invalidate a dentry behind a `mkdir` lock left
/// a zombie holding `/dev/fuse` and `daemon.lock`: the writers and a new `mount` hung. Writers and
/// `mkdir`/`rmdir` loops in other processes run in one directory while the daemon is killed, round after
/// round; each round the mount must be gone within 5 s (else the test aborts the connection itself, so it
/// never hangs, and fails), the writers must end, a remount must work and every acknowledged write
/// must be there. The last two tests hit the moment every time with a crash point, with the watchdog
/// and without it (the mount then outlives its daemon: the tests can fail).
@Suite struct DaemonDeathTests {
    /// Without the watchdog about one kill in ten left the mount behind (1 of 12 in each of two runs).
    static let rounds = 20
    static let writer = """
        import os, sys, time
        base, log, stop, role, ident = sys.argv[1:6]
        n = 0
        with open(log, "a") as out:
            deadline = time.monotonic() + 60
            while not os.path.exists(stop) and time.monotonic() < deadline:
                n += 1
                try:
                    if role == "mkdir":
                        os.mkdir("%s/d%s" % (base, ident)); os.rmdir("%s/d%s" % (base, ident))
                    else:
                        with open("%s/w%s/value" % (base, ident), "w") as f: f.write("%d" % n)
                        out.write("%s %d\\n" % (ident, n)); out.flush()
                except OSError:
                    time.sleep(0.005)
        """

    /// Starts the loops in other processes; returns them.
    func startWriters(_ m: MountedVault, log: String, stop: String) throws -> [Process] {
        try? FileManager.default.removeItem(atPath: stop)
        return try [("mkdir", "0"), ("mkdir", "1"), ("mkdir", "2"), ("write", "0"), ("write", "1")].map { role, ident in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", Self.writer, m.path("genp/svc"), log + ident, stop, role, ident]
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
    }

    /// The last acknowledged value of each writer (its close returned 0).
    func acknowledged(_ log: String) -> [String: Int] {
        var last: [String: Int] = [:]
        for ident in ["0", "1"] {
            let lines = ((try? String(contentsOfFile: log + ident, encoding: .utf8)) ?? "").split(separator: "\n")
            for line in lines {
                let fields = line.split(separator: " ")
                if fields.count == 2, let n = Int(fields[1]) { last[String(fields[0])] = n }
            }
        }
        return last
    }

    @Test func killedDuringWritesAndMkdirsTheMountGoesAndARemountWorks() throws {
        let m = try MountedVault()
        defer { m.close() }
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for ident in ["0", "1"] { #expect(FS.mkdir(m.path("genp/svc/w\(ident)")) == 0) }
        var stuck = 0
        for round in 0..<Self.rounds {
            let log = m.root + "/writes-\(round)-", stop = m.root + "/stop"
            let writers = try startWriters(m, log: log, stop: stop)
            usleep(UInt32(200_000 + round * 37_000 % 150_000))
            let pid = try #require(m.daemonPID)
            kill(pid, SIGKILL)
            if !m.wait(5, until: { !m.isMounted }) {
                stuck += 1
                ConnectionAbort.abort(m.mount)
                _ = m.wait(10) { !m.isMounted }
            }
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            let ended = m.wait(10) { writers.allSatisfy { !$0.isRunning } }
            #expect(ended, "round \(round): the writers end")
            for writer in writers where writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
            #expect(m.wait(10) { kill(pid, 0) != 0 }, "round \(round): the daemon is gone")
            if m.isMounted { m.unmount() }
            try expectSuccess(m.remount())
            for (ident, n) in acknowledged(log) {
                let stored = Int(FS.text(m.path("genp/svc/w\(ident)/value")) ?? "") ?? -1
                #expect(stored >= n, "round \(round): writer \(ident)'s acknowledged write \(n) is there (\(stored))")
            }
        }
        #expect(stuck == 0, "rounds in which the mount outlived its daemon by 5 s: \(stuck) of \(Self.rounds)")
    }

    /// The moment itself, every time: the daemon dies (a crash point) while one of its threads waits in
    /// the kernel to invalidate a dentry behind the `mkdir` it is serving. Returns whether the mount was
    /// gone within 5 s; the test aborts the connection itself otherwise, and then checks the recovery.
    func dieBehindAMkdir(disabling guards: String? = nil) throws -> Bool {
        let point = "mkdir.whileItsDirectoryIsInvalidated", report = "/tmp/kcfs-crash-" + UUID().uuidString.prefix(8)
        defer { unlink(report) }
        var environment = ["KEYCHAINFS_CRASH_AT": point, "KEYCHAINFS_CRASH_REPORT": report]
        if let guards { environment[LockGuardsName.variable] = guards }
        let m = try MountedVault(mountEnvironment: environment)
        defer { m.close() }
        let pid = try #require(m.daemonPID)
        let mkdir = Process()
        mkdir.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mkdir.arguments = [
            "-c", "import os, sys\ntry: os.mkdir(sys.argv[1])\nexcept OSError: pass", m.path("genp/svc"),
        ]
        try mkdir.run()
        let gone = m.wait(5) { !m.isMounted }
        if !gone {
            ConnectionAbort.abort(m.mount)
            _ = m.wait(10) { !m.isMounted }
        }
        #expect((try? String(contentsOfFile: report, encoding: .utf8)) == point, "the daemon died at the crash point")
        #expect(m.wait(10) { !mkdir.isRunning }, "the mkdir ends")
        if mkdir.isRunning { kill(mkdir.processIdentifier, SIGKILL) }
        #expect(m.wait(10) { kill(pid, 0) != 0 }, "the daemon is gone")
        if m.isMounted { m.unmount() }
        try expectSuccess(m.remount())
        #expect(FS.mkdir(m.path("genp/svc")) == 0, "the new mount serves")
        return gone
    }

    @Test func aDaemonDeadBehindAMkdirLeavesNoMountBehind() throws {
        #expect(try dieBehindAMkdir(), "the watchdog took the mount down within 5 s")
    }

    /// With the watchdog switched off (a test device only), the same death leaves the mount hung: the
    /// test above can fail.
    @Test func withoutTheWatchdogTheMountOutlivesItsDaemon() throws {
        #expect(try !dieBehindAMkdir(disabling: "mount-watchdog"), "without the watchdog the mount stays")
    }
}
