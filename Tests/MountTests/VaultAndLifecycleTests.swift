import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// What the vault keeps on disk, and how mounts come and go (docs/spec.md §4 "Mount behaviour", §8).
@Suite struct VaultAndLifecycleTests {
    @Test func noPlaintextInTheVaultAfterUnmount() throws {
        let m = try MountedVault()
        let service = "svc-PLAIN-9c1f", account = "acct-PLAIN-77ab", label = "label-PLAIN-3e0d",
            secret = "secret-PLAIN-b2f4"
        #expect(FS.mkdir(m.path("genp/\(service)")) == 0)
        #expect(FS.mkdir(m.path("genp/\(service)/\(account)")) == 0)
        #expect(FS.setxattr(m.path("genp/\(service)/\(account)"), "user.kSecAttrLabel", label) == 0)
        #expect(FS.write(m.path("genp/\(service)/\(account)/value"), secret) == 0)
        #expect(FS.write(m.path("genp/\(service)/\(account)/value"), secret + "-v2") == 0)
        m.unmount()
        let files = try FileManager.default.subpathsOfDirectory(atPath: m.vault)
        #expect(files.contains("items.sqlite"))
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: m.vault + "/" + file) else { continue }
            for marker in [service, account, label, secret] {
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) is in \(file)")
            }
        }
    }

    @Test func sigtermUnmountsCleanly() throws {
        let m = try MountedVault()
        let pid = try #require(m.daemonPID)
        kill(pid, SIGTERM)
        #expect(m.wait { !m.isMounted })
        #expect(m.wait { kill(pid, 0) != 0 })
    }

    @Test func sigkillLeavesNoDeadMountAndEveryClosedWriteSurvives() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        let base = m.path("genp/svc")
        let writer = Thread {
            for i in 0..<10_000 {
                let item = base + "/item\(i % 20)"
                if FS.mkdir(item) != 0 && errno != EEXIST { return }
                if FS.write(item + "/value", "value-\(i)") != 0 { return }
                Marker.last.set(i)
            }
        }
        writer.start()
        #expect(m.wait { Marker.last.value >= 200 })
        let pid = try #require(m.daemonPID)
        kill(pid, SIGKILL)
        #expect(m.wait(30) { !m.isMounted }, "auto_unmount removes the dead mount")
        #expect(m.wait { writer.isFinished })
        let committed = Marker.last.value
        try expectSuccess(m.cli(["mount", m.vault, m.mount]))
        // Every write whose close() returned 0 is there, intact.
        for i in max(0, committed - 19)...committed {
            #expect(FS.text(m.path("genp/svc/item\(i % 20)/value"))?.hasPrefix("value-") == true)
        }
        let last = FS.text(m.path("genp/svc/item\(committed % 20)/value")) ?? ""
        #expect(last == "value-\(committed)" || last == "value-\(committed + 20)")
    }

    @Test func unmountCommandAndDoubleMount() throws {
        let m = try MountedVault()
        let again = m.cli(["mount", m.vault, m.root + "/second"])
        #expect(!again.succeeded && again.stderr.contains("already"))
        try expectSuccess(m.cli(["unmount", m.mount]))
        #expect(!m.isMounted, "unmount returns once the mount is gone")
        #expect(!m.control.isDaemonRunning)
    }

    @Test func statusAndDeviceCommandsByVault() throws {
        let m = try MountedVault()
        let status = m.cli(["status", "--vault", m.vault])
        #expect(status.succeeded && status.stdout.contains("state: no-passcode") && status.stdout.contains("genp 0"))
        #expect(!m.cli(["device", "lock", "--vault", m.root + "/elsewhere"]).succeeded)
        #expect(m.cli(["device", "auto-lock", "1", "--mount", m.mount]).succeeded)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        #expect(m.wait(5) { m.device("status").stdout.contains("state: locked") }, "auto-lock")
    }

    @Test func controlSocketRejectsMalformedFrames() throws {
        let m = try MountedVault()
        let path = ControlSocket.path(for: Vault(directory: m.vault))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(connected == 0)
        let garbage: [UInt8] = [0, 0, 0, 3, 0xFF, 0xFF, 0xFF]
        #expect(send(fd, garbage, garbage.count, 0) == garbage.count)
        // The reply is one frame, which may arrive in more than one piece: read to its end (the server closes).
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            reply += chunk[0..<n]
        }
        #expect(reply.count > 4)
        #expect(String(decoding: reply, as: UTF8.self).contains("malformed"))
        #expect(m.control.isDaemonRunning, "the daemon survives")
    }
}

/// The last write whose close() returned 0.
final class Marker: @unchecked Sendable {
    static let last = Marker()
    private let lock = NSLock()
    private var index = -1
    var value: Int { lock.withLock { index } }
    func set(_ i: Int) { lock.withLock { index = i } }
}

extension VaultAndLifecycleTests {
    @Test func anotherUserCannotReadTheMountOrTalkToTheDaemon() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0 && FS.mkdir(m.path("genp/svc/a")) == 0)
        #expect(FS.write(m.path("genp/svc/a/value"), "mine") == 0)
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let cat = Command.run("/usr/bin/setpriv", asNobody + ["/bin/cat", m.path("genp/svc/a/value")])
        #expect(!cat.succeeded && !cat.stdout.contains("mine"))
        let ls = Command.run("/usr/bin/setpriv", asNobody + ["/bin/ls", m.mount])
        #expect(!ls.succeeded)
        let lock = Command.run(
            "/usr/bin/setpriv", asNobody + [MountedVault.binary, "device", "lock", "--vault", m.vault])
        #expect(!lock.succeeded)
        #expect(FS.text(m.path("genp/svc/a/value")) == "mine")
    }
}
