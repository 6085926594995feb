import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// `keychainfs backup` / `restore`: every item but ThisDeviceOnly ones, to a vault on another device key.
@Suite struct BackupTests {
    static let password = Data("backup password".utf8)
    static let migratable = ["ak", "ck", "dk"]
    static let deviceOnly = ["aku", "cku", "dku", "akpu"]

    /// A vault with a passcode and one genp per accessibility, plus an inet item.
    static func populated() throws -> TestVault {
        let v = try TestVault()
        try v.keychain.setPasscode(Data("1234".utf8))
        for a in migratable + deviceOnly {
            _ = try v.add(
                genp("svc", a, ["pdmn": .string(a), "v_Data": data("secret " + a), "labl": .string("label " + a)]))
        }
        _ = try v.add([
            "class": "inet", "srvr": "example.com", "acct": "u", "ptcl": "htps", "port": .number(8443),
            "v_Data": data("inet secret"),
        ])
        return v
    }

    @Test func restoreIntoAFreshVaultOnAnotherDeviceKeyReadsEveryMigratableItem() throws {
        let source = try Self.populated()
        let (archive, count) = try source.keychain.backup(password: Self.password)
        #expect(count == Self.migratable.count + 1)
        for a in Self.migratable + Self.deviceOnly {
            #expect(
                archive.range(of: Data(("secret " + a).utf8)) == nil
                    && archive.range(of: Data(("label " + a).utf8)) == nil, "no plaintext in the file")
        }
        let sourceRef = try source.copy(genp("svc", "ak", ["r_PersistentRef": true]))
        let target = try TestVault()
        let outcome = try target.keychain.restore(archive, password: Self.password, merge: false)
        #expect(outcome == RestoreOutcome(added: count, replaced: 0, kept: 0))
        for a in Self.migratable {
            let item = try target.copy(genp("svc", a, ["r_Data": true, "r_Attributes": true]))?.dictionaryValue
            #expect(
                item?["v_Data"] == data("secret " + a) && item?["labl"] == .string("label " + a)
                    && item?["pdmn"] == .string(a))
        }
        for a in Self.deviceOnly {
            #expect(
                target.status { _ = try target.copy(genp("svc", a)) } == SecStatus.itemNotFound,
                "\(a) stays on its device")
        }
        #expect(
            try target.copy([
                "class": "inet", "srvr": "example.com", "acct": "u", "ptcl": "htps", "port": .number(8443),
                "r_Data": true,
            ]) == data("inet secret"))
        #expect(
            try target.copy(genp("svc", "ak", ["r_PersistentRef": true])) == sourceRef, "persistent references survive")
        // Dates come along: the restored item is as old as the original.
        let mdat = { (v: TestVault) in try v.copy(genp("svc", "ck", ["r_Attributes": true]))?.dictionaryValue?["mdat"] }
        #expect(try mdat(target) == mdat(source))
    }

    @Test func wrongPasswordDamagedFileAndNonEmptyVaultRestoreNothing() throws {
        let source = try Self.populated()
        var (archive, _) = try source.keychain.backup(password: Self.password)
        let target = try TestVault()
        #expect(
            target.status { _ = try target.keychain.restore(archive, password: Data("wrong".utf8), merge: false) }
                == SecStatus.authFailed)
        archive[archive.count - 5] ^= 0x01
        #expect(
            target.status { _ = try target.keychain.restore(archive, password: Self.password, merge: false) }
                == SecStatus.authFailed)
        #expect(
            target.status {
                _ = try target.keychain.restore(Data("not a backup".utf8), password: Self.password, merge: false)
            } == SecStatus.decode)
        #expect(try target.keychain.itemCounts().values.reduce(0, +) == 0)
        _ = try target.add(genp("other", "x"))
        archive[archive.count - 5] ^= 0x01
        #expect(
            target.status { _ = try target.keychain.restore(archive, password: Self.password, merge: false) }
                == SecStatus.duplicateItem)
        #expect(try target.keychain.itemCounts().values.reduce(0, +) == 1)
    }

    @Test func mergeKeepsTheNewerItem() throws {
        let target = try TestVault()
        _ = try target.add(genp("svc", "ak", ["v_Data": data("older in the vault")]))
        let source = try TestVault()
        _ = try source.add(genp("svc", "ak", ["v_Data": data("newer in the backup")]))
        _ = try source.add(genp("svc", "ck", ["pdmn": "ck", "v_Data": data("older in the backup")]))
        let (archive, _) = try source.keychain.backup(password: Self.password)
        _ = try target.add(genp("svc", "ck", ["pdmn": "ck", "v_Data": data("newer in the vault")]))
        let outcome = try target.keychain.restore(archive, password: Self.password, merge: true)
        #expect(outcome == RestoreOutcome(added: 0, replaced: 1, kept: 1))
        #expect(target.secret("svc", "ak") == .success(Data("newer in the backup".utf8)))
        #expect(target.secret("svc", "ck") == .success(Data("newer in the vault".utf8)))
    }

    @Test func aLockedDeviceCannotBeBackedUp() throws {
        let source = try Self.populated()
        source.keychain.lockDevice()
        #expect(
            source.status { _ = try source.keychain.backup(password: Self.password) } == SecStatus.interactionNotAllowed
        )
    }
}
