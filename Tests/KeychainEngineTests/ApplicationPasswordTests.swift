import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// `.applicationPassword` beyond the table's cells (docs/authentication-table.md, rule 8): adds, updates,
/// the stored bytes, and a key's identity join.
@Suite struct ApplicationPasswordTests {
    static let bit: Int64 = 1 << 31
    static let password = Data("correct horse".utf8)

    private func context(_ password: Data) -> KeychainDictionary { AuthenticationTableTests.context(password) }

    private func read(_ v: TestVault, _ password: Data?) -> Result<Data, KeychainError> {
        Result { () throws(KeychainError) in
            try v.copy(genp("svc", "acct", ["r_Data": true]).merging(password.map(context) ?? [:]) { $1 })?.dataValue
                ?? Data()
        }
    }

    @Test func anAddNeedsThePasswordAndNothingIsStoredWithoutIt() throws {
        let v = try TestVault()
        #expect(
            v.status { _ = try v.add(genp("svc", "acct", ["v_Data": data("token"), "accc": .number(Self.bit)])) }
                == -25293)
        #expect(v.status { _ = try v.copy(genp("svc", "acct", ["r_Attributes": true])) } == -25300, "nothing was added")
        _ = try v.add(
            genp("svc", "acct", ["v_Data": data("token"), "accc": .number(Self.bit)]).merging(context(Self.password)) {
                $1
            })
        #expect(try read(v, Self.password).get() == Data("token".utf8))
        #expect(read(v, nil).failure?.status == -25293)
        #expect(read(v, Data("Correct horse".utf8)).failure?.status == -25293)
        #expect(read(v, Data()).failure?.status == -25293, "an empty password is a password, and not this one")
        #expect(
            v.status { _ = try v.copy(genp("svc", "acct", ["r_Attributes": true])) } == 0, "attributes need no password"
        )
        // A search over several items fails on the protected one without its password (Apple: one auth per item).
        _ = try v.add(genp("svc", "other", ["v_Data": data("open")]))
        #expect(v.status { _ = try v.copy(genp("svc", "other", ["r_Data": true])) } == 0)
    }

    @Test func theStoredSecretIsSealedByThePassword() throws {
        let v = try TestVault()
        let secret = "a secret no class key opens alone"
        _ = try v.add(
            genp("svc", "acct", ["v_Data": data(secret), "accc": .number(Self.bit)]).merging(context(Self.password)) {
                $1
            })
        // A backup copies secrets as they are stored (under the class keys): opened, it still holds only the envelope.
        let archive = try v.keychain.backup(password: Data("backup pass".utf8)).archive
        let stored = try #require(try BackupArchive.open(archive, password: Data("backup pass".utf8)).first?.secret)
        #expect(stored.range(of: Data(secret.utf8)) == nil, "the class keys alone do not reveal it")
        #expect(try ApplicationPassword.open(stored, password: Self.password) == Data(secret.utf8))
        let restored = try TestVault()
        _ = try restored.keychain.restore(archive, password: Data("backup pass".utf8), merge: false)
        #expect(read(restored, nil).failure?.status == -25293, "the restored item still needs its password")
        #expect(try read(restored, Self.password).get() == Data(secret.utf8))
    }

    @Test func updatesCheckThePasswordAndKeepTheOldSecretOnFailure() throws {
        let v = try TestVault()
        _ = try v.add(
            genp("svc", "acct", ["v_Data": data("one"), "accc": .number(Self.bit)]).merging(context(Self.password)) {
                $1
            })
        let query = genp("svc", "acct")
        #expect(v.status { try v.update(query, ["v_Data": data("two")]) } == -25293, "a new secret needs the password")
        #expect(
            v.status { try v.update(query.merging(context(Data("wrong".utf8))) { $1 }, ["v_Data": data("two")]) }
                == -25293)
        #expect(try read(v, Self.password).get() == Data("one".utf8), "nothing changed")
        try v.update(query, ["labl": "renamed"])  // attributes only: no password
        #expect(try read(v, Self.password).get() == Data("one".utf8))
        try v.update(query.merging(context(Self.password)) { $1 }, ["v_Data": data("two")])
        #expect(try read(v, Self.password).get() == Data("two".utf8))
        // Dropping the requirement needs the password and leaves the secret readable without one.
        #expect(v.status { try v.update(query, ["accc": 0]) } == -25293)
        try v.update(query.merging(context(Self.password)) { $1 }, ["accc": 0])
        #expect(try read(v, nil).get() == Data("two".utf8))
        // Adding it seals the secret under the password given.
        try v.update(query.merging(context(Data("new one".utf8))) { $1 }, ["accc": .number(Self.bit)])
        #expect(read(v, nil).failure?.status == -25293)
        #expect(try read(v, Data("new one".utf8)).get() == Data("two".utf8))
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
