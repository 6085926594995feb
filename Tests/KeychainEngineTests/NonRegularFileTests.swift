import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// docs/security.md: a FIFO (or a device) at a path the daemon opens is a clear error, never a hang: the
/// audit log at start and at reopen, access.toml, and the vault's files (vault.json, keybag, the item
/// database and its WAL, the device key). Each open runs under a deadline; one that blocks past it is a
/// failure, and the test then unblocks it by opening the FIFO itself.
@Suite struct NonRegularFileTests {
    /// Runs `body` on its own thread and returns the message of the error it throws (nil: none). Fails if
    /// it has not returned within 5 s (then opens `fifo` so that it can).
    func failure(_ what: String, fifo: String, _ body: @escaping @Sendable () throws -> Void) -> String? {
        let outcome = Outcome()
        Thread.detachNewThread {
            do { try body() } catch let error as KeychainError { outcome.message = error.message } catch {
                outcome.message = "\(error)"
            }
            outcome.done.signal()
        }
        if outcome.done.wait(timeout: .now() + 5) == .timedOut {
            Issue.record("\(what): blocked on the FIFO")
            let fd = open(fifo, O_RDWR | O_NONBLOCK)
            usleep(200_000)
            close(fd)
            _ = outcome.done.wait(timeout: .now() + 5)
        }
        return outcome.message
    }

    final class Outcome: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var message: String?  // written before `done` is signalled, read after
    }

    @Test func aFIFOAtTheAuditLogOrAccessTomlIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-fifo-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let atStart = failure("the audit log's first open", fifo: fifo) { _ = try AuditLog(path: fifo) }
        #expect(atStart?.contains("FIFO") == true, "\(atStart ?? "opened")")
        let rules = failure("access.toml", fifo: fifo) { _ = try AccessPolicy.read(fifo) }
        #expect(rules?.contains("FIFO") == true, "\(rules ?? "read")")
        // After rotation, a FIFO at the path: the reopen does not block, the old file keeps the lines, and it says so.
        let path = directory + "/audit.jsonl"
        let reports = AuditLogWriteTests.Reports()
        let log = try AuditLog(path: path) { reports.add($0) }
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        #expect(mkfifo(path, 0o600) == 0)
        _ = failure("the audit log's reopen", fifo: path) { log.reopen() }
        #expect(reports.all.count == 1 && reports.all[0].contains("FIFO"), "\(reports.all)")
        try log.record("device.status", item: nil, status: 0, by: .init(pid: getpid(), uid: getuid()))
        #expect(try String(contentsOfFile: path + ".1", encoding: .utf8).contains("device.status"))
    }

    @Test func aFIFOInPlaceOfAVaultFileIsAnError() throws {
        let v = try TestVault()
        _ = try v.add(genp("svc", "a", ["v_Data": data("A")]))
        for name in ["vault.json", "keybag", "items.sqlite", "items.sqlite-wal", "device.key"] {
            let directory = v.directory + "-fifo-" + UUID().uuidString.prefix(8)
            try FileManager.default.copyItem(atPath: v.directory, toPath: directory)
            let key = directory + ".device.key"
            try FileManager.default.copyItem(atPath: v.directory + ".device.key", toPath: key)
            defer {
                try? FileManager.default.removeItem(atPath: directory); try? FileManager.default.removeItem(atPath: key)
            }
            let target = name == "device.key" ? key : directory + "/" + name
            unlink(target)
            #expect(mkfifo(target, 0o600) == 0)
            let refusal = failure(name, fifo: target) {
                _ = try Keychain(vault: Vault(directory: directory), deviceKeyPath: key)
            }
            #expect(refusal?.contains("FIFO") == true, "\(name): \(refusal ?? "opened")")
        }
    }

    /// An access.toml over 1 MiB is refused (it is read only a byte past that limit).
    @Test func anAccessTomlOverItsLimitIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kc-huge-\(UUID().uuidString).toml")
            .path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(ftruncate(fd, 4 << 20) == 0)
        close(fd)
        do {
            _ = try AccessPolicy.read(path)
            Issue.record("a 4 MiB access.toml was read")
        } catch {
            #expect(error.message.contains("at most 1 MiB"))
        }
    }
}
