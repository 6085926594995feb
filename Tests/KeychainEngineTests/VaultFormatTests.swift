import Foundation
import GRDB
import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// The vault records its format; a newer one is refused, an older one migrated (docs/spec.md §8).
@Suite struct VaultFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// A private copy of the fixture vault made by the release `release` (scripts/make-fixture-vault.sh);
    /// a device key kept beside it (formats 2 on) is copied too and the copy's vault.json points at it.
    static func fixtureCopy(_ release: String = "2026-11-23") throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("kc-fixture-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: fixtures + "/vault-\(release)", toPath: copy)
        chmod(copy, 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: copy) { chmod(copy + "/" + name, 0o600) }
        let outsideKey = fixtures + "/vault-\(release).device.key"
        if FileManager.default.fileExists(atPath: outsideKey) {
            try FileManager.default.copyItem(atPath: outsideKey, toPath: copy + ".device.key")
            chmod(copy + ".device.key", 0o600)
            let configPath = copy + "/vault.json"
            var config =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configPath)))
                as? [String: Any] ?? [:]
            config["deviceKeyPath"] = copy + ".device.key"
            try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        }
        return copy
    }

    /// Removes a fixture copy and its device key.
    static func removeCopy(_ copy: String) {
        try? FileManager.default.removeItem(atPath: copy)
        try? FileManager.default.removeItem(atPath: copy + ".device.key")
    }

    static let fixturePasscode = Data("fixture-1234".utf8)

    /// The fixture's items: (service, account, accessibility, secret).
    static let fixtureItems: [(String, String, String, String)] = [
        ("fixture.always", "alice", "dk", "fixture secret dk"), ("fixture.always", "bob", "dku", "fixture secret dku"),
        ("fixture.afterfirst", "carol", "ck", "fixture secret ck"),
        ("fixture.afterfirst", "dave", "cku", "fixture secret cku"),
        ("fixture.unlocked", "erin", "ak", "fixture secret ak"),
        ("fixture.unlocked", "frank", "aku", "fixture secret aku"),
        ("fixture.passcode", "heidi", "akpu", "fixture secret akpu"),
    ]

    @Test func aVaultOfTheReleaseOf20261123OpensAndReadsAfterMigration() throws {
        let copy = try Self.fixtureCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let before = try Vault(directory: copy).config()
        #expect(before.format == 1 && before.deviceKeyPath == nil)
        let keychain = try Keychain(vault: Vault(directory: copy))
        #expect(try Vault(directory: copy).config().format == VaultFormat.current)
        #expect(
            !FileManager.default.fileExists(atPath: copy + "/items.sqlite.pre-migration"),
            "the backup goes once the migration committed")
        #expect(try Vault(directory: copy).deviceKeyIsInside())
        try keychain.unlockDevice(passcode: Self.fixturePasscode)
        let caller = Caller()
        for (service, account, accessibility, secret) in Self.fixtureItems {
            let item = try keychain.copyMatching(
                genp(service, account, ["r_Data": true, "r_Attributes": true]), caller: caller)?.dictionaryValue
            #expect(item?["v_Data"] == data(secret), "\(service)/\(account)")
            #expect(item?["pdmn"] == .string(accessibility))
        }
        let inet = try keychain.copyMatching(
            ["class": "inet", "srvr": "fixture.example.com", "acct": "grace", "r_Data": true], caller: caller)
        #expect(inet == data("fixture secret inet"))
        let label = try keychain.copyMatching(genp("fixture.always", "alice", ["r_Attributes": true]), caller: caller)?
            .dictionaryValue?["labl"]
        #expect(label == .string("Fixture label"))
        // The database records what it applied and its format.
        let applied = try DatabaseQueue(path: copy + "/items.sqlite").read { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                try Int.fetchOne(db, sql: "SELECT version FROM vault_format")
            )
        }
        #expect(applied.0 == ["v1-item-tables", "v2-vault-format", "v3-row-shapes"] && applied.1 == 3)
    }

    /// The rows of an older vault are sealed again with their shape once their class is
    /// available (at open, and at the first unlock for the rest), so a secret column nulled later is
    /// errSecDecode there too, never an empty secret.
    @Test func theRowsOfAnOlderVaultGainTheirShape() throws {
        let copy = try Self.fixtureCopy()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        // The rows as the older release sealed them, to put back afterwards.
        let older = try DatabaseQueue(path: copy + "/items.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, metadata FROM genp").map {
                (rowid: $0[0] as Int64, metadata: $0[1] as Data)
            }
        }
        let keychain = try Keychain(vault: Vault(directory: copy))
        try keychain.unlockDevice(passcode: Self.fixturePasscode)
        let pending = try DatabaseQueue(path: copy + "/items.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row_shapes_pending")
        }
        #expect(pending == 0, "every row was sealed again")
        try DatabaseQueue(path: copy + "/items.sqlite").write { db in
            try db.execute(sql: "UPDATE genp SET secret = NULL")
        }
        // Half the rows get their older box back: once every row has its shape, the old binding opens nothing.
        try DatabaseQueue(path: copy + "/items.sqlite").write { db in
            for row in older where row.rowid % 2 == 0 {
                try db.execute(
                    sql: "UPDATE genp SET metadata = ? WHERE rowid = ?", arguments: [row.metadata, row.rowid])
            }
        }
        #expect(older.count == Self.fixtureItems.count && older.contains { $0.rowid % 2 == 0 })
        for (service, account, _, _) in Self.fixtureItems {
            do {
                let value = try keychain.copyMatching(genp(service, account, ["r_Data": true]), caller: Caller())
                Issue.record("\(service)/\(account): a nulled secret read as \(String(describing: value))")
            } catch {
                #expect(error.status == SecStatus.decode, "\(service)/\(account)")
            }
        }
    }

    @Test func aNewerFormatIsRefusedWithAClearError() throws {
        let v = try TestVault()
        let config = v.directory + "/vault.json"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "\"format\" : \(VaultFormat.current)", with: "\"format\" : 99").write(
            toFile: config, atomically: true, encoding: .utf8)
        do {
            _ = try Keychain(vault: Vault(directory: v.directory))
            Issue.record("a vault of format 99 opened")
        } catch {
            #expect(error.status == SecStatus.wrongSecVersion)
            #expect(
                error.message.contains("format 99") && error.message.contains("upgrade keychainfs")
                    && error.message.contains("vault.json"), "\(error.message)")
        }
    }

    @Test func aDatabaseMigratedByANewerBuildIsRefused() throws {
        let v = try TestVault()
        try DatabaseQueue(path: v.directory + "/items.sqlite").write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v3-from-the-future')")
        }
        do {
            _ = try Keychain(vault: Vault(directory: v.directory))
            Issue.record("a database of a newer build opened")
        } catch {
            #expect(
                error.status == SecStatus.wrongSecVersion && error.message.contains("newer keychainfs"),
                "\(error.message)")
        }
    }

    @Test func moveDeviceKeyOutOfAFormat1Vault() throws {
        let copy = try Self.fixtureCopy()
        let state = copy + "-state"
        defer { try? FileManager.default.removeItem(atPath: copy); try? FileManager.default.removeItem(atPath: state) }
        let moved = try Vault(directory: copy).moveDeviceKeyOut(to: state + "-device.key")
        defer { unlink(moved) }
        #expect(!FileManager.default.fileExists(atPath: copy + "/device.key"))
        #expect(try !Vault(directory: copy).deviceKeyIsInside())
        let mode = try FileManager.default.attributesOfItem(atPath: moved)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let keychain = try Keychain(vault: Vault(directory: copy))
        #expect(
            try keychain.copyMatching(genp("fixture.always", "alice", ["r_Data": true]), caller: Caller())
                == data("fixture secret dk"))
        #expect(throws: KeychainError.self) { _ = try Vault(directory: copy).moveDeviceKeyOut() }
    }
}
