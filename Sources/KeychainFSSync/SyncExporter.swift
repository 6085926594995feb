import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// Moves items between the vault and the clone's `items/` files, remembering in ``SyncState`` what it
/// exchanged so an unchanged vault writes nothing.
package struct SyncExporter {
    package let clone: String
    package let access: any SyncKeychainAccess
    /// Where ``SyncVersions`` is kept.
    package let versionsPath: String

    private var itemsDirectory: String { clone + "/" + SyncFile.directory }
    private func path(_ name: String) -> String { itemsDirectory + "/" + name }
    /// The item file `name` in the clone (nil when absent), refused beyond ``RepositoryFile/maxItemBytes``.
    private func itemFile(_ name: String) throws(KeychainError) -> Data? {
        try RepositoryFile.read(path(name), limit: RepositoryFile.maxItemBytes)
    }

    /// Writes a file per new or changed local item, and a tombstone per item that is gone from the vault
    /// (deleted, renamed by a primary-key update, or no longer synchronizable). Returns the files written.
    package func export(_ state: inout SyncState) throws(KeychainError) -> Int {
        try? FileManager.default.createDirectory(atPath: itemsDirectory, withIntermediateDirectories: true)
        return try access.with { keychain throws(KeychainError) -> Int in
            let items = try keychain.synchronizableItems()
            return try keychain.withCircleKeys { circle throws(KeychainError) -> Int in
                let keys = circle.keys
                var versions = try SyncVersions.load(versionsPath, key: keys.versionKey)
                var written = 0
                var present = Set<String>()
                let lockedRows = Set(items.filter { $0.record == nil }.map { SyncState.hex($0.uuid) })
                for item in items {
                    guard let record = item.record else { continue }
                    let name = keys.fileName(for: record)
                    present.insert(name)
                    let entry = SyncState.Entry(
                        uuid: SyncState.hex(item.uuid), fingerprint: SyncState.hex(item.fingerprint), fileHash: "")
                    // Unchanged since the last exchange, and its file is still there (a host may drop files).
                    var st = stat()
                    if let known = state.entries[name], known.uuid == entry.uuid,
                        known.fingerprint == entry.fingerprint,
                        lstat(path(name), &st) == 0
                    {
                        continue
                    }
                    if let bytes = try? itemFile(name),
                        let current = try? circle.open(bytes, name: name), current.record == record,
                        current.epoch == circle.epoch
                    {
                        versions.note(record, name: name)
                        state.entries[name] = SyncState.Entry(
                            uuid: entry.uuid, fingerprint: entry.fingerprint, fileHash: SyncState.fileHash(bytes))
                        continue
                    }
                    let bytes = circle.seal(record, name: name)
                    try write(bytes, name)
                    versions.note(record, name: name)
                    state.entries[name] = SyncState.Entry(
                        uuid: entry.uuid, fingerprint: entry.fingerprint, fileHash: SyncState.fileHash(bytes))
                    written += 1
                }
                for (name, entry) in state.entries.sorted(by: { $0.key < $1.key }) {
                    guard let uuid = entry.uuid, !present.contains(name), !lockedRows.contains(uuid) else { continue }
                    var next = entry
                    next.uuid = nil
                    next.fingerprint = nil
                    if let bytes = try? itemFile(name), let old = try? circle.open(bytes, name: name).record,
                        !old.deleted
                    {
                        let stamp = max(Date(), old.modificationDate.addingTimeInterval(0.001))
                        let tombstone = old.tombstone(at: stamp)
                        let sealed = circle.seal(tombstone, name: name)
                        try write(sealed, name)
                        versions.note(tombstone, name: name)
                        next.fileHash = SyncState.fileHash(sealed)
                        written += 1
                    }
                    state.entries[name] = next
                }
                try versions.save(versionsPath, key: keys.versionKey)
                return written
            }
        }
    }

    /// Applies every file that changed since it was last exchanged. A file that does not open is reported
    /// and skipped (and retried next time); so is one the vault cannot take now (a locked class).
    package func importChanges(_ state: inout SyncState, into report: inout SyncReport) throws(KeychainError) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: itemsDirectory)) ?? []).sorted()
        try access.with { keychain throws(KeychainError) in
            try keychain.withCircleKeys { circle throws(KeychainError) in
                var versions = try SyncVersions.load(versionsPath, key: circle.keys.versionKey)
                for name in names where Self.isItemName(name) {
                    // Never through a link or from anything but a regular file (UntrustedTree leaves none out here).
                    let bytes: Data
                    do throws(KeychainError) {
                        guard let read = try itemFile(name) else { continue }
                        bytes = read
                    } catch {
                        report.skipped.append("items/\(name): \(error.message)")
                        continue
                    }
                    let hash = SyncState.fileHash(bytes)
                    if state.entries[name]?.fileHash == hash { continue }
                    let record: SyncRecord
                    do { record = try circle.open(bytes, name: name).record } catch {
                        report.skipped.append("items/\(name): \(error)")
                        // The vault's own version (if it holds the item) replaces the refused file with the next export.
                        state.entries[name]?.fingerprint = nil
                        continue
                    }
                    if let known = versions.newerThan(record, name: name) {
                        report.skipped.append(
                            "items/\(name): older than a version this vault applied (a replayed or rolled-back file); refused"
                        )
                        state.entries[name, default: SyncState.Entry(fileHash: "")].fileHash = hash
                        if known.deleted {
                            // Put the tombstone back, so the repository and the vaults that join later agree.
                            let sealed = circle.seal(record.tombstone(at: known.modified), name: name)
                            try write(sealed, name)
                            state.entries[name]?.fileHash = SyncState.fileHash(sealed)
                            report.exported += 1
                        } else {
                            // The vault's newer version goes out again with the next export.
                            state.entries[name]?.fingerprint = nil
                        }
                        continue
                    }
                    let local: LocalSyncItem?
                    do { local = try keychain.applySyncRecord(record) } catch {
                        report.skipped.append("items/\(name): \(error)")
                        continue
                    }
                    var entry = SyncState.Entry(
                        uuid: local.map { SyncState.hex($0.uuid) },
                        fingerprint: local.map { SyncState.hex($0.fingerprint) },
                        fileHash: hash)
                    if let mine = local?.record, mine != record {
                        // The vault's version is newer: it goes out with this sync.
                        let sealed = circle.seal(mine, name: name)
                        try write(sealed, name)
                        versions.note(mine, name: name)
                        entry.fileHash = SyncState.fileHash(sealed)
                        report.exported += 1
                    } else if local != nil || record.deleted {
                        versions.note(record, name: name)
                        report.imported += 1
                    }
                    state.entries[name] = entry
                }
                try versions.save(versionsPath, key: circle.keys.versionKey)
            }
        }
    }

    /// Re-seals every item file of an older epoch in the current one, signed by this vault, from what the
    /// vault itself holds (right after a sync round: the newest versions it accepted): its own items, and
    /// tombstones of the items it knows deleted. A file that a removed member signed after its removal
    /// was never applied, so it is replaced, not laundered. Returns the files written.
    func resealAll(_ state: inout SyncState) throws(KeychainError) -> Int {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: itemsDirectory)) ?? []).sorted()
        return try access.with { keychain throws(KeychainError) -> Int in
            let items = try keychain.synchronizableItems()
            return try keychain.withCircleKeys { circle throws(KeychainError) -> Int in
                var versions = try SyncVersions.load(versionsPath, key: circle.keys.versionKey)
                var mine: [String: LocalSyncItem] = [:]
                for item in items { if let record = item.record { mine[circle.fileName(for: record)] = item } }
                var written = 0
                for name in names where Self.isItemName(name) {
                    guard let bytes = try? itemFile(name), let parts = try? SignedSyncFile.parse(bytes),
                        parts.epoch != circle.epoch
                    else { continue }
                    var entry = state.entries[name] ?? SyncState.Entry(fileHash: "")
                    let record: SyncRecord
                    if let item = mine[name], let own = item.record {
                        record = own
                        entry.uuid = SyncState.hex(item.uuid)
                        entry.fingerprint = SyncState.hex(item.fingerprint)
                    } else if let known = versions.seen[name], known.deleted,
                        let old = try? circle.open(bytes, name: name, anyMember: true).record
                    {
                        record = old.tombstone(at: known.modified)
                    } else {
                        continue
                    }
                    let sealed = circle.seal(record, name: name)
                    try write(sealed, name)
                    versions.note(record, name: name)
                    entry.fileHash = SyncState.fileHash(sealed)
                    state.entries[name] = entry
                    written += 1
                }
                try versions.save(versionsPath, key: circle.keys.versionKey)
                return written
            }
        }
    }

    /// Removes invitations whose expiry has passed (read with the members' key), and join requests whose
    /// invitation is gone (used or expired: nobody can admit them any more).
    package func removeExpiredInvitations() throws(KeychainError) -> Int {
        let directory = clone + "/" + InvitationFile.directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let requests = clone + "/" + JoinRequest.directory
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: requests)) ?? []).prefix(256)
        where !names.contains(name) {
            unlink(requests + "/" + name)
        }
        guard !names.isEmpty else { return 0 }
        return try access.with { keychain throws(KeychainError) -> Int in
            try keychain.withSyncKeys { keys throws(KeychainError) -> Int in
                var removed = 0
                for name in names {
                    let file = directory + "/" + name
                    guard let bytes = try? RepositoryFile.read(file, limit: RepositoryFile.maxInvitationBytes),
                        let expiry = InvitationFile.expiry(bytes, name: name, memberKey: keys.memberKey),
                        expiry <= Date()
                    else { continue }
                    try? FileManager.default.removeItem(atPath: file)
                    unlink(requests + "/" + name)
                    removed += 1
                }
                return removed
            }
        }
    }

    package static func isItemName(_ name: String) -> Bool { name.count == 40 && name.allSatisfy(\.isHexDigit) }

    private func write(_ data: Data, _ name: String) throws(KeychainError) {
        try FileIO.writeAtomically(data, to: path(name), mode: 0o600)
    }
}
