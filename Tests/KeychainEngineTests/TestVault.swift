import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A throwaway vault in a temporary directory (a test device: fast Argon2id, no lockout delays).
final class TestVault {
    let directory: String
    let keychain: Keychain
    let caller: Caller

    init(testDevice: Bool = true, groups: [String] = Caller.defaultAccessGroups) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-engine-\(UUID().uuidString)").path
        // The device key beside the vault, not in the machine's state directory.
        let vault = try Vault.create(at: directory, deviceKeyPath: directory + ".device.key", testDevice: testDevice)
        keychain = try Keychain(vault: vault)
        caller = Caller(accessGroups: groups)
    }

    /// A vault whose device has the table's passcode and an enrolled face (the authentication tests' device).
    static func withFaceID() throws -> TestVault {
        let v = try TestVault()
        try v.keychain.setPasscode(AuthenticationTableTests.passcode)
        try v.keychain.enrollBiometry()
        return v
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.removeItem(atPath: directory + ".device.key")
    }

    func add(_ d: KeychainDictionary, as c: Caller? = nil) throws(KeychainError) -> KeychainValue? {
        try keychain.add(d, caller: c ?? caller)
    }
    func copy(_ d: KeychainDictionary, as c: Caller? = nil) throws(KeychainError) -> KeychainValue? {
        try keychain.copyMatching(d, caller: c ?? caller)
    }
    func update(_ q: KeychainDictionary, _ a: KeychainDictionary, as c: Caller? = nil) throws(KeychainError) {
        try keychain.update(q, a, caller: c ?? caller)
    }
    func delete(_ d: KeychainDictionary) throws(KeychainError) { try keychain.delete(d, caller: caller) }

    /// The OSStatus a call ends with (0 on success).
    func status(_ body: () throws -> Void) -> OSStatus {
        do { try body(); return SecStatus.success } catch let error as KeychainError { return error.status } catch {
            return -1
        }
    }

    /// The secret of genp item (service, account), or the failing status.
    func secret(_ service: String, _ account: String) -> Result<Data, KeychainError> {
        do {
            let v = try copy(["class": "genp", "svce": .string(service), "acct": .string(account), "r_Data": true])
            return .success(v?.dataValue ?? Data())
        } catch { return .failure(error) }
    }
}

func genp(_ service: String, _ account: String, _ extra: KeychainDictionary = [:]) -> KeychainDictionary {
    ["class": "genp", "svce": .string(service), "acct": .string(account)].merging(extra) { $1 }
}

func data(_ s: String) -> KeychainValue { .data(Data(s.utf8)) }

import GRDB

extension TestVault {
    /// Raw access to the vault's SQLite file, to tamper with it as an attacker would.
    func withDatabase(_ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: directory + "/items.sqlite")
        try queue.write(body)
    }
}

extension Database {
    func exec(_ sql: String) throws { try execute(sql: sql) }
}
