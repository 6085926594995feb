import Foundation
import GRDB
import KeychainFSEngine
import KeychainFSModel
import Testing

/// What is on disk: no plaintext, no splicing, no reading without the device key.
@Suite struct VaultSecurityTests {
    @Test func noPlaintextInAnyVaultFile() throws {
        let v = try TestVault()
        let markers = [
            "svc-MARKER-7f3a", "acct-MARKER-91bd", "label-MARKER-c4e2", "secret-MARKER-55aa", "TEAM-MARKER-group",
        ]
        let caller = Caller(accessGroups: [markers[4]])
        _ = try v.add(
            genp(markers[0], markers[1], ["labl": .string(markers[2]), "v_Data": data(markers[3])]), as: caller)
        try v.update(genp(markers[0], markers[1]), ["v_Data": data(markers[3] + "-2")], as: caller)
        let files = try FileManager.default.contentsOfDirectory(atPath: v.directory)
        #expect(files.contains("items.sqlite"))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: v.directory + "/" + file))
            for marker in markers { #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) found in \(file)") }
        }
    }

    @Test func swappedRowsAreDetected() throws {
        let v = try TestVault()
        _ = try v.add(genp("svc", "a", ["v_Data": data("A")]))
        _ = try v.add(genp("svc", "b", ["v_Data": data("B")]))
        try v.withDatabase { db in
            try db.exec(
                "UPDATE genp SET metadata = (SELECT metadata FROM genp WHERE rowid = 2), secret = (SELECT secret FROM genp WHERE rowid = 2) WHERE rowid = 1"
            )
        }
        #expect(v.status { _ = try v.copy(genp("svc", "a", ["r_Data": true])) } == SecStatus.decode)
        try v.withDatabase { db in
            try db.exec("UPDATE genp SET h_acct = (SELECT h_acct FROM genp WHERE rowid = 2) || x'00' WHERE rowid = 1")
        }
        #expect(
            v.status { _ = try v.copy(["class": "genp", "m_Limit": "m_LimitAll", "r_Data": true]) } == SecStatus.decode)
        #expect(try v.copy(genp("svc", "b", ["r_Data": true])) == data("B"), "the intact item still reads")
    }

    /// The same with both rows in the row cache first: a lookup by attributes that asks SQL takes cached
    /// attributes only for the very row it found, so a row whose sealed bytes or lookup columns changed
    /// underneath is opened again, and refused. (The rows are cached here by lookups of another limit, so
    /// the lookups below are not ones this generation remembers: ``lookupsRememberedAnswerAsTheyDidBefore``.)
    @Test func rowsChangedUnderTheRowCacheAreDetected() throws {
        func cachedPair() throws -> TestVault {
            let v = try TestVault()
            _ = try v.add(genp("svc", "a", ["v_Data": data("A")]))
            _ = try v.add(genp("svc", "b", ["v_Data": data("B")]))
            for account in ["a", "b"] {
                let lookup = genp("svc", account, ["r_Data": true, "m_Limit": 2])
                #expect(try v.copy(lookup) == .array([data(account.uppercased())]))
            }
            return v
        }
        // Row 2's sealed attributes copied onto row 1: even a lookup of attributes alone is refused.
        let swapped = try cachedPair()
        try swapped.withDatabase { db in
            try db.exec("UPDATE genp SET metadata = (SELECT metadata FROM genp WHERE rowid = 2) WHERE rowid = 1")
        }
        #expect(swapped.status { _ = try swapped.copy(genp("svc", "a", ["r_Attributes": true])) } == SecStatus.decode)
        // Row 1 keeps its sealed bytes (as cached) but takes b's account column: a lookup of "b" finds it,
        // and must not answer with a's cached attributes and secret.
        let moved = try cachedPair()
        try moved.withDatabase(Self.moveAccountOfBOntoA)
        #expect(moved.status { _ = try moved.copy(genp("svc", "b", ["r_Data": true])) } == SecStatus.decode)
    }

    /// A lookup this generation ran already is answered from the rows it found, without SQL: a vault's
    /// writer who changes the file under a running engine changes nothing it answers (each item's own
    /// attributes and secret, as they were), until the next change of the keychain, after which SQL is
    /// asked again and the damage is refused. Never another item's answer.
    @Test func lookupsRememberedAnswerAsTheyDidBefore() throws {
        let v = try TestVault()
        _ = try v.add(genp("svc", "a", ["v_Data": data("A")]))
        _ = try v.add(genp("svc", "b", ["v_Data": data("B")]))
        for account in ["a", "b"] {
            #expect(try v.copy(genp("svc", account, ["r_Data": true])) == data(account.uppercased()))
        }
        try v.withDatabase(Self.moveAccountOfBOntoA)
        #expect(try v.copy(genp("svc", "b", ["r_Data": true])) == data("B"), "b's own secret, as it was")
        #expect(try v.copy(genp("svc", "a", ["r_Data": true])) == data("A"))
        _ = try v.add(genp("svc", "c"))
        #expect(v.status { _ = try v.copy(genp("svc", "b", ["r_Data": true])) } == SecStatus.decode)
    }

    /// Row 1 (account a) takes row 2's account column; row 2's becomes random.
    private static func moveAccountOfBOntoA(_ db: Database) throws {
        try db.exec("CREATE TEMP TABLE b AS SELECT h_acct FROM genp WHERE rowid = 2")
        try db.exec("UPDATE genp SET h_acct = randomblob(32) WHERE rowid = 2")
        try db.exec("UPDATE genp SET h_acct = (SELECT h_acct FROM b) WHERE rowid = 1")
    }

    /// Lookup columns a vault's writer set to odd values (empty, text, NULL where a hash was) are read as they
    /// are (a row's columns are read into one buffer) and fail the attribute box's check: errSecDecode, never
    /// a crash or another item's answer, and the other items still read.
    @Test func oddLookupColumnsAreDecodeErrors() throws {
        for (column, damage) in [("h_acct", "x''"), ("h_acct", "'text'"), ("h_labl", "NULL"), ("h_labl", "x''")] {
            let v = try TestVault()
            _ = try v.add(genp("svc", "a", ["v_Data": data("A"), "labl": "L"]))
            _ = try v.add(genp("svc", "b", ["v_Data": data("B"), "labl": "M"]))
            try v.withDatabase { db in try db.exec("UPDATE genp SET \(column) = \(damage) WHERE rowid = 1") }
            let all: KeychainDictionary = [
                "class": "genp", "svce": "svc", "m_Limit": "m_LimitAll", "r_Attributes": true,
            ]
            #expect(v.status { _ = try v.copy(all) } == SecStatus.decode, "\(column) = \(damage)")
            #expect(try v.copy(genp("svc", "b", ["r_Data": true])) == data("B"), "\(column) = \(damage): b still reads")
        }
    }

    @Test func aVaultWithoutItsDeviceKeyIsUnreadable() throws {
        let v = try TestVault()
        _ = try v.add(genp("svc", "a", ["v_Data": data("A")]))
        let copy = v.directory + "-copy"
        try FileManager.default.copyItem(atPath: v.directory, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        #expect(
            !FileManager.default.fileExists(atPath: copy + "/device.key"),
            "the device key is not in the vault directory")
        // The copy on another machine: the key file its config names is not there.
        try FileManager.default.moveItem(atPath: v.directory + ".device.key", toPath: v.directory + ".moved")
        defer { try? FileManager.default.moveItem(atPath: v.directory + ".moved", toPath: v.directory + ".device.key") }
        #expect(throws: KeychainError.self) { _ = try Keychain(vault: Vault(directory: copy)) }
        // Another device key at that path: the keybag does not open.
        let other = try TestVault()
        try FileManager.default.copyItem(atPath: other.directory + ".device.key", toPath: v.directory + ".device.key")
        defer { try? FileManager.default.removeItem(atPath: v.directory + ".device.key") }
        #expect(throws: KeychainError.self) { _ = try Keychain(vault: Vault(directory: copy)) }
    }

    @Test func externalDeviceKey() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("kc-ext-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let vault = try Vault.create(at: base + "/vault", deviceKeyPath: base + "/uid.key", testDevice: true)
        #expect(!FileManager.default.fileExists(atPath: base + "/vault/device.key"))
        let attrs = try FileManager.default.attributesOfItem(atPath: base + "/uid.key")
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        let kc = try Keychain(vault: vault)
        _ = try kc.add(genp("s", "a"), caller: Caller())
    }

    @Test func corruptedDatabaseGivesAClearError() throws {
        let v = try TestVault()
        let path = v.directory + "/items.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        do { _ = try Keychain(vault: Vault(directory: v.directory)); Issue.record("opened a corrupt vault") } catch {
            #expect([SecStatus.notAvailable, SecStatus.decode].contains(error.status))
        }
    }
}
