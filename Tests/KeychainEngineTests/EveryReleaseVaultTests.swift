import Foundation
import GRDB
import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// A vault written by every earlier release opens, migrates and reads (docs/spec.md §8), and the schema's
/// versions are frozen: today's schema table must still produce the latest frozen tables.
@Suite struct EveryReleaseVaultTests {
    /// The releases whose vaults are in Tests/Fixtures, oldest first (scripts/make-fixture-vault.sh).
    static let releases = ["2026-11-23", "format2-637bccf", "format3-2aa73fb"]
        .filter { FileManager.default.fileExists(atPath: VaultFormatTests.fixtures + "/vault-\($0)") }

    /// The item tables and indexes of the database at `path`, as SQLite keeps their SQL.
    static func itemTableSQL(_ path: String) throws -> [String] {
        let classes = Schema.storedClasses.map(\.code)
        return try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
                .filter { classes.contains($0[0] as String) }.map { $0[1] as String }
        }
    }

    @Test func everyFixtureReleaseIsHere() {
        #expect(Self.releases.count == 3, "\(Self.releases)")
    }

    @Test(arguments: releases) func aVaultOfAnEarlierReleaseOpensMigratesAndReads(release: String) throws {
        let copy = try VaultFormatTests.fixtureCopy(release)
        defer { VaultFormatTests.removeCopy(copy) }
        let keychain = try Keychain(vault: Vault(directory: copy))
        #expect(try Vault(directory: copy).config().format == VaultFormat.current)
        #expect(
            try Self.itemTableSQL(copy + "/items.sqlite") == SchemaVersions.v1, "its tables are version 1's, as frozen")
        try keychain.unlockDevice(passcode: VaultFormatTests.fixturePasscode)
        for (service, account, accessibility, secret) in VaultFormatTests.fixtureItems {
            let item = try keychain.copyMatching(
                genp(service, account, ["r_Data": true, "r_Attributes": true]), caller: Caller())?.dictionaryValue
            #expect(item?["v_Data"] == data(secret), "\(release): \(service)/\(account)")
            #expect(item?["pdmn"] == .string(accessibility), "\(release): \(service)/\(account)")
        }
        let inet = try keychain.copyMatching(
            ["class": "inet", "srvr": "fixture.example.com", "acct": "grace", "r_Data": true], caller: Caller())
        #expect(inet == data("fixture secret inet"), "\(release)")
        keychain.lockDevice()
        #expect(throws: KeychainError.self, "\(release): locked again, the unlocked class is unavailable") {
            _ = try keychain.copyMatching(genp("fixture.unlocked", "erin", ["r_Data": true]), caller: Caller())
        }
    }

    @Test func todaysSchemaProducesTheLatestFrozenVersion() {
        let live = Schema.storedClasses.flatMap(ItemTable.createStatements).map(SchemaVersions.normalized)
        #expect(
            live == SchemaVersions.latest,
            "the schema's stored attributes changed: freeze a new version in SchemaVersions and add a migration to it")
    }

    @Test func aNewVaultHasTheLatestFrozenTables() throws {
        let v = try TestVault()
        #expect(
            try Self.itemTableSQL(v.directory + "/items.sqlite").map(SchemaVersions.normalized) == SchemaVersions.latest
        )
    }
}
