import Foundation
import KeychainFSEngine
import KeychainFSModel
@testable import KeychainFSSync
import KeychainFSTestSupport

/// A member's vault driven through the engine, as a hostile member's own program would drive it: its
/// records, sealed and signed with its own keys, and what its keys make of a file.
struct MemberForge {
    let keychain: Keychain

    init(_ vault: String) throws { keychain = try Keychain(vault: Vault(directory: vault)) }

    /// The synchronizable record of the generic password (service, account) in this vault.
    func record(service: String, account: String) throws -> SyncRecord {
        let records = try keychain.synchronizableItems().compactMap(\.record)
        guard
            let record = records.first(where: {
                $0.attributes["svce"] == .string(service) && $0.attributes["acct"] == .string(account)
            })
        else {
            throw ForgeError("no synchronizable item \(service)/\(account)")
        }
        return record
    }

    /// `record` sealed and signed by this vault in the epoch it holds, as the file `name` (the one it
    /// belongs to by default).
    func signedFile(_ record: SyncRecord, name: String? = nil) throws -> (name: String, bytes: Data) {
        try keychain.withCircleKeys { circle throws(KeychainError) -> (name: String, bytes: Data) in
            let file = name ?? circle.fileName(for: record)
            return (file, circle.seal(record, name: file))
        }
    }

    /// The file name `record` belongs to.
    func fileName(_ record: SyncRecord) throws -> String {
        try keychain.withCircleKeys { circle throws(KeychainError) -> String in circle.fileName(for: record) }
    }

    /// Why this vault's keys refuse the file `name`, nil if they open it.
    func refusal(_ bytes: Data, name: String) throws -> String? {
        try keychain.withCircleKeys { circle throws(KeychainError) -> String? in
            do throws(SyncFormatError) { _ = try circle.open(bytes, name: name); return nil } catch {
                return error.message
            }
        }
    }

    /// `bytes` (a signed item file `name`) signed instead by a fresh identity that is in no circle, which
    /// somehow holds the epoch's key.
    static func signedByStranger(_ bytes: Data, name: String) -> Data {
        let stranger = SyncIdentity.generate(name: "stranger")
        defer { stranger.wipe() }
        var part = Data(bytes.dropLast(64))
        part.replaceSubrange(8..<40, with: stranger.keys.signingKey)
        return part + stranger.sign(Data("keychainfs.sync.record.v2\0\(name)\0".utf8) + part)
    }

    struct ForgeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension SyncRecord {
    /// This record with another secret and an mdat `seconds` later: a newer version.
    func changed(secret: String, later seconds: TimeInterval = 3600, attributes extra: [String: KeychainValue] = [:])
        -> SyncRecord
    {
        var record = self
        record.secret = Data(secret.utf8)
        record.attributes["mdat"] = .date(modificationDate.addingTimeInterval(seconds))
        record.attributes.merge(extra) { $1 }
        return record
    }
}

extension SyncGroup {
    /// A fresh clone of the remote's `main`, as the host sees it (a work tree to read files from).
    func hostCheckout(_ label: String) throws -> String {
        let work = root + "/look-" + label
        try expectSuccess(Command.run("/usr/bin/git", ["clone", "-q", "-b", "main", remote, work]))
        return work
    }

    /// The commit the remote's `main` names.
    func remoteHead() -> String {
        Command.run("/usr/bin/git", ["-C", remote, "rev-parse", "main"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// The host moves `main` to `commit` (a rewind, a fork), no key needed.
    func hostSetsMain(_ commit: String) throws {
        try expectSuccess(Command.run("/usr/bin/git", ["-C", remote, "update-ref", "refs/heads/main", commit]))
    }
}
