import Foundation
import Testing
import KeychainFSTestSupport

/// The Secret Service's lock is the device's: after `device lock` every client is refused the secret
/// (secret-tool fails silently, secretstorage raises LockedException, keyring KeyringLocked), the
/// collection is Locked, and an Unlock prompt answered with the passcode from the CLI unlocks.
@Suite struct LockThroughBusTests {
    @Test func aLockedDeviceRefusesEveryClientUntilAnUnlockPromptIsAnswered() throws {
        let s = try ServedVault()
        try expectSuccess(
            s.secretTool(["store", "--label=l", "service", "svc", "username", "alice"], stdin: "locked-secret"))
        try expectSuccess(s.vault.device("passcode", "set", passcode: "1234"))
        #expect(s.python("secretstorage_client", ["dh", "locked"]).stdout == "False\n")
        try expectSuccess(s.vault.device("lock"))

        let lookup = s.secretTool(["lookup", "service", "svc", "username", "alice"])
        #expect(!lookup.succeeded && lookup.stdout.isEmpty, "\(lookup)")
        let stored = s.python("secretstorage_client", ["dh", "get", "service=svc", "username=alice"])
        #expect(stored.status == 3 && stored.stdout == "LOCKED\n", "LockedException: \(stored)")
        let keyring = s.python("keyring_client", ["get", "svc", "alice"])
        #expect(keyring.status == 3 && keyring.stdout == "LOCKED\n", "KeyringLocked: \(keyring)")
        #expect(s.python("secretstorage_client", ["dh", "locked"]).stdout == "True\n")

        // A wrong passcode leaves it locked (the prompt completes dismissed); the right one unlocks.
        try expectSuccess(s.vault.device("prompt", "passcode", "--next", passcode: "0000"))
        #expect(s.python("secretstorage_client", ["dh", "unlock"]).stdout == "dismissed\n")
        #expect(s.python("secretstorage_client", ["dh", "locked"]).stdout == "True\n")
        try expectSuccess(s.vault.device("prompt", "passcode", "--next", passcode: "1234"))
        #expect(s.python("secretstorage_client", ["dh", "unlock"]).stdout == "unlocked\n")
        #expect(s.python("secretstorage_client", ["dh", "locked"]).stdout == "False\n")
        #expect(s.secretTool(["lookup", "service", "svc", "username", "alice"]).stdout == "locked-secret")
        #expect(s.python("keyring_client", ["get", "svc", "alice"]).stdout == "locked-secret")
    }

    /// Service.Lock locks the device; with Face ID enrolled, Unlock's prompt takes a face (`device prompt match`).
    @Test func lockThroughTheBusAndAnUnlockAnsweredWithAFace() throws {
        let s = try ServedVault()
        try expectSuccess(
            s.secretTool(["store", "--label=l", "service", "svc", "username", "face"], stdin: "face-secret"))
        try expectSuccess(s.vault.device("passcode", "set", passcode: "1234"))
        try expectSuccess(s.vault.device("biometry", "enroll"))
        // As on iOS, a face unlocks only after a passcode unlock since the enrolment.
        try expectSuccess(s.vault.device("lock"))
        try expectSuccess(s.vault.device("unlock", passcode: "1234"))
        try expectSuccess(s.python("secretstorage_client", ["dh", "lock"]))
        #expect(s.vault.device("status").stdout.hasPrefix("state: locked\n"), "\(s.vault.device("status"))")
        #expect(MountFiles.text(s.vault.path("genp/svc/face/value")) == nil, "the mount is locked too")
        try expectSuccess(s.vault.device("prompt", "match", "--next"))
        #expect(s.python("secretstorage_client", ["dh", "unlock"]).stdout == "unlocked\n")
        #expect(s.secretTool(["lookup", "service", "svc", "username", "face"]).stdout == "face-secret")
    }

    /// Signals follow changes made anywhere: a lock through the CLI, an item made through the mount.
    @Test func signalsFollowChangesMadeThroughTheMountAndTheCLI() throws {
        let s = try ServedVault()
        try expectSuccess(s.vault.device("passcode", "set", passcode: "1234"))
        let watcher = try RunningClient("watch_signals", ["20"], on: s.bus)
        defer { watcher.kill() }  // and kept alive until then
        let lines = watcher.lines
        #expect(lines.waitFor(10) { $0 == "ready" } != nil)

        #expect(MountFiles.makeItem(s, service: "watched", account: "item", value: "v"))
        #expect(lines.waitFor(10) { $0.hasPrefix("ItemCreated /org/freedesktop/secrets/collection/login") } != nil)
        try expectSuccess(s.vault.device("lock"))
        #expect(
            lines.waitFor(10) {
                $0.hasPrefix("PropertiesChanged /org/freedesktop/secrets/collection/login ")
                    && $0.contains("'Locked': ('b', True)")
            } != nil)
        #expect(
            lines.waitFor(10) {
                $0.hasPrefix("PropertiesChanged /org/freedesktop/secrets/collection/login/")
                    && $0.contains("'org.freedesktop.Secret.Item'")
                    && $0.contains("'Locked': ('b', True)")
            } != nil, "the item's own Locked: \(lines.all)")
        try expectSuccess(s.vault.device("unlock", passcode: "1234"))
        #expect(lines.waitFor(10) { $0.hasPrefix("PropertiesChanged") && $0.contains("'Locked': ('b', False)") } != nil)
        #expect(lines.waitFor(10) { $0.hasPrefix("CollectionChanged") } != nil)
    }
}

/// Lines of a child's output, read on a thread of their own, waited for with a deadline.
final class LineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            var pending = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lock.withLock { lines.append(line) }
                }
            }
        }
    }

    /// The first line (so far or within `timeout`) that `matches`.
    func waitFor(_ timeout: TimeInterval, _ matches: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = lock.withLock({ lines.first(where: matches) }) { return line }
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    var all: [String] { lock.withLock { lines } }
}
