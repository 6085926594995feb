import Foundation
import GRDB
import KeychainFSEngine
import KeychainFSModel
import Testing

/// Flipped and truncated bytes in every vault file (docs/spec.md §8): the open is refused with a message
/// naming the file, or the vault opens and each item reads back intact or fails on its own (errSecDecode, or
/// errSecItemNotFound when the damage hit its lookup columns or a WAL frame); never a crash, never another
/// item's plaintext. The outcome counts are printed for RELIABILITY.md.
@Suite struct CorruptionTests {
    static let itemCount = 12
    static func secret(_ i: Int) -> Data {
        Data("corruption-test secret number \(i) \(String(repeating: "x", count: i * 7))".utf8)
    }

    /// One file's damage tally.
    struct Tally: CustomStringConvertible {
        var cases = 0, refused = 0, opened = 0, intactReads = 0, decodeReads = 0, missingReads = 0
        var description: String {
            "\(cases) cases: \(refused) refused at open naming the file, \(opened) opened (reads: \(intactReads) intact, \(decodeReads) errSecDecode, \(missingReads) errSecItemNotFound)"
        }
    }

    /// A vault of `itemCount` items whose last writes are still in the WAL, copied while open; its device key beside it.
    static func template(checkpointed: Bool) throws -> (directory: String, key: String) {
        let v = try TestVault()
        for i in 0..<itemCount {
            _ = try v.add(
                genp("svc", "acct\(i)", ["v_Data": .data(secret(i)), "pdmn": .string(["ak", "ck", "dk"][i % 3])]))
        }
        let directory = v.directory + "-template"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in ["vault.json", "keybag", "items.sqlite", "items.sqlite-wal"] {
            try FileManager.default.copyItem(atPath: v.directory + "/" + name, toPath: directory + "/" + name)
        }
        try FileManager.default.copyItem(atPath: v.directory + ".device.key", toPath: directory + ".device.key")
        if checkpointed {
            // Everything moved into the database file, so its pages (not the WAL's frames) hold the rows.
            try DatabaseQueue(path: directory + "/items.sqlite").writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            unlink(directory + "/items.sqlite-wal")
            unlink(directory + "/items.sqlite-shm")
        }
        chmod(directory, 0o700)
        return (directory, directory + ".device.key")
    }

    enum Damage { case flip(Int), truncate(Int) }

    /// Runs one case: copies the template, damages `file`, opens, reads every item.
    static func run(_ template: (directory: String, key: String), file: String, damage: Damage, tally: inout Tally)
        throws
    {
        let directory = template.directory + "-case-" + UUID().uuidString.prefix(8)
        try FileManager.default.copyItem(atPath: template.directory, toPath: directory)
        let key = directory + ".device.key"
        try FileManager.default.copyItem(atPath: template.key, toPath: key)
        defer {
            try? FileManager.default.removeItem(atPath: directory); try? FileManager.default.removeItem(atPath: key)
        }
        let target = file == "device.key" ? key : directory + "/" + file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        switch damage {
        case .flip(let offset): bytes[offset] ^= 0x5A
        case .truncate(let length): bytes = bytes.prefix(length)
        }
        try bytes.write(to: URL(fileURLWithPath: target))
        tally.cases += 1
        let keychain: Keychain
        do { keychain = try Keychain(vault: Vault(directory: directory), deviceKeyPath: key) } catch {
            tally.refused += 1
            let named =
                error.message.contains(file == "device.key" ? key : file)
                || (file == "items.sqlite-wal" && error.message.contains("items.sqlite"))
            #expect(named, "\(file) \(damage): the refusal names the file: \(error.message)")
            return
        }
        tally.opened += 1
        for i in 0..<itemCount {
            do {
                let value = try keychain.copyMatching(genp("svc", "acct\(i)", ["r_Data": true]), caller: Caller())
                #expect(value == .data(secret(i)), "\(file) \(damage): item \(i) read back another value")
                tally.intactReads += 1
            } catch let error where error.status == SecStatus.decode {
                tally.decodeReads += 1
            } catch let error where error.status == SecStatus.itemNotFound {
                tally.missingReads += 1
            } catch {
                Issue.record("\(file) \(damage): item \(i) failed with an unexpected error: \(error)")
            }
        }
    }

    @Test func flippedAndTruncatedBytesInEveryVaultFile() throws {
        var report: [String] = []
        for checkpointed in [false, true] {
            let template = try Self.template(checkpointed: checkpointed)
            defer {
                try? FileManager.default.removeItem(atPath: template.directory);
                try? FileManager.default.removeItem(atPath: template.key)
            }
            let files =
                checkpointed
                ? ["items.sqlite"] : ["items.sqlite", "items.sqlite-wal", "keybag", "vault.json", "device.key"]
            for file in files {
                let path = file == "device.key" ? template.key : template.directory + "/" + file
                let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                #expect(size > 0, "\(file) exists in the template")
                var tally = Tally()
                // Flips spread over the whole file (headers, page structure, sealed blobs), then truncations.
                let step = max(1, size / (checkpointed ? 400 : 60))
                for offset in stride(from: 0, to: size, by: step) {
                    try Self.run(template, file: file, damage: .flip(offset), tally: &tally)
                }
                for length in Set([0, 1, size / 2, size - 1]) where length < size {
                    try Self.run(template, file: file, damage: .truncate(length), tally: &tally)
                }
                report.append(
                    "\(file)\(checkpointed ? " (checkpointed, no WAL)" : " (rows in the WAL)") \(size) bytes: \(tally)")
            }
        }
        print("corruption outcomes:\n" + report.joined(separator: "\n"))
    }

    /// A damaged secret column never reads as an empty secret. The row's shape (whether it
    /// has data, and the sealed length) is authenticated with its attributes, so a NULL, empty or cut
    /// `secret` is errSecDecode, and so is data planted into a row stored without any.
    @Test func aNulledOrCutSecretColumnIsDecodeNeverEmpty() throws {
        for damage in ["NULL", "x''", "substr(secret, 1, length(secret) - 1)"] {
            let v = try TestVault()
            _ = try v.add(genp("svc", "a", ["v_Data": data("the password")]))
            _ = try v.add(genp("svc", "b", ["v_Data": data("another")]))
            try v.withDatabase { db in try db.exec("UPDATE genp SET secret = \(damage) WHERE rowid = 1") }
            #expect(
                v.status { _ = try v.copy(genp("svc", "a", ["r_Data": true])) } == SecStatus.decode,
                "secret = \(damage)")
            #expect(try v.copy(genp("svc", "b", ["r_Data": true])) == data("another"), "the intact item still reads")
        }
        let v = try TestVault()
        _ = try v.add(genp("svc", "empty"))
        _ = try v.add(genp("svc", "full", ["v_Data": data("x")]))
        try v.withDatabase { db in
            try db.exec("UPDATE genp SET secret = (SELECT secret FROM genp WHERE rowid = 2) WHERE rowid = 1")
        }
        #expect(
            v.status { _ = try v.copy(genp("svc", "empty", ["r_Data": true])) } == SecStatus.decode,
            "data planted in a row without any")
    }
}
