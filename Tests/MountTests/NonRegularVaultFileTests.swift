import Foundation
import Testing
import KeychainFSTestSupport

/// docs/security.md, through the CLI and the daemon: a FIFO at a name in the vault (daemon.log, vault.json,
/// the keybag, access.toml) is a clear error, never a hang of `mount` or of the daemon. Every command runs
/// under Command.run's deadline; a FIFO left blocking is opened by the test so nothing stays behind.
@Suite struct NonRegularVaultFileTests {
    /// Replaces `name` in the vault by a FIFO, in one rename: unlinking first would show the daemon a vault
    /// without the file for a moment (for access.toml: no rules, which are then the last good ones; the
    /// writer's RELEASE, which the kernel sends after close returns, landed there every time).
    func plantFIFO(_ m: MountedVault, _ name: String) throws -> String {
        let path = m.vault + "/" + name
        #expect(mkfifo(path + ".fifo", 0o600) == 0)
        #expect(rename(path + ".fifo", path) == 0)
        return path
    }

    /// Opens `fifo` for reading and writing (never blocks) and closes it: a reader or writer stuck in open(2) goes on.
    func release(_ fifo: String) {
        let fd = open(fifo, O_RDWR | O_NONBLOCK)
        usleep(100_000)
        if fd >= 0 { close(fd) }
    }

    @Test func aFIFOInTheVaultFailsTheMountAtOnce() throws {
        for name in ["daemon.log", "vault.json", "keybag"] {
            let m = try MountedVault()
            defer { m.close() }
            m.unmount()
            let fifo = try plantFIFO(m, name)
            let started = Date()
            let mounted = Command.run(MountedVault.binary, ["mount", m.vault, m.mount], timeout: 15)
            release(fifo)
            #expect(Date().timeIntervalSince(started) < 10, "\(name): no hang")
            #expect(mounted.status != 0 && mounted.stderr.contains("FIFO"), "\(name): \(mounted.stderr)")
            #expect(!m.isMounted)
        }
    }

    @Test func aFIFOAtAccessTomlKeepsTheRulesAndTheDaemonAnswering() throws {
        let m = try MountedVault()
        defer { m.close() }
        try expectSuccess(m.cli(["access", "grant", "a", "--uid", "\(getuid())", "--vault", m.vault]))
        let value = m.makeItem(service: "svc", account: "acct") + "/value"
        #expect(FS.write(value, "v") == 0, "stored (an item in the making has no value to read)")
        let fifo = try plantFIFO(m, "access.toml")
        defer { release(fifo) }
        let started = Date()
        // In a child with a deadline: a daemon blocked on the FIFO would block the reader too.
        let read = Command.run("/bin/cat", [value], timeout: 5)
        #expect(read.status == 0, "the last good rules stay in force: \(read.stderr)")
        #expect(Command.run(MountedVault.binary, ["device", "status", "--mount", m.mount], timeout: 5).status == 0)
        #expect(Date().timeIntervalSince(started) < 8, "no hang")
    }
}
