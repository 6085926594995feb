import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync
import Testing

/// The simulated Secure Enclave in the engine (docs/spec.md §10): keys bound to the device key and their class.
@Suite struct SecureEnclaveTests {
    func request(_ operation: String, _ extra: KeychainDictionary = [:]) -> KeychainDictionary {
        ["operation": .string(operation)].merging(extra) { $1 }
    }

    func generate(_ v: TestVault, _ accessibility: String = "ak") throws -> Data {
        try #require(
            try v.keychain.secureEnclave(
                request("generate", ["accessibility": .string(accessibility)]), caller: v.caller
            ).dataValue)
    }

    func sign(_ v: TestVault, _ blob: Data, _ extra: KeychainDictionary = [:]) throws(KeychainError) -> Data {
        let digest = Data(SHA256.hash(data: Data("message".utf8)))
        return try v.keychain.secureEnclave(
            request(
                "sign", ["blob": .data(blob), "digest": .data(digest), "accessibility": "ak"].merging(extra) { $1 }),
            caller: v.caller
        ).dataValue ?? Data()
    }

    @Test func signsWithAKeyOnlyThisDeviceCanUse() throws {
        let a = try TestVault(), b = try TestVault()
        let blob = try generate(a)
        let publicKey = try P256.Signing.PublicKey(x963Representation: blob.prefix(65))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try sign(a, blob))
        #expect(publicKey.isValidSignature(signature, for: SHA256.hash(data: Data("message".utf8))))
        // Another device (another device key) cannot use the blob.
        #expect(b.status { _ = try sign(b, blob) } == SecStatus.param)
        // Nor can the same device under another accessibility class (the class key is bound in).
        #expect(a.status { _ = try sign(a, blob, ["accessibility": "ck"]) } == SecStatus.param)
        // A vault copied and opened with another device key cannot even open its keybag.
        let copy = a.directory + "-copy"
        try FileManager.default.copyItem(atPath: a.directory, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let otherKey = try Vault(directory: b.directory).deviceKeyPath()
        #expect(throws: KeychainError.self) { _ = try Keychain(vault: Vault(directory: copy), deviceKeyPath: otherKey) }
    }

    @Test func obeysTheLockOfItsClass() throws {
        let v = try TestVault()
        let whenUnlocked = try generate(v, "ak"), afterFirstUnlock = try generate(v, "ck")
        try v.keychain.setPasscode(Data("1234".utf8))
        v.keychain.lockDevice()
        #expect(v.status { _ = try sign(v, whenUnlocked) } == SecStatus.interactionNotAllowed)
        #expect(v.status { _ = try generate(v, "ak") } == SecStatus.interactionNotAllowed)
        #expect(v.status { _ = try sign(v, afterFirstUnlock, ["accessibility": "ck"]) } == SecStatus.success)
        try v.keychain.unlockDevice(passcode: Data("1234".utf8))
        #expect(v.status { _ = try sign(v, whenUnlocked) } == SecStatus.success)
    }

    @Test func storedKeysAreCheckedAgainstTheirItem() throws {
        let v = try TestVault()
        let blob = try generate(v), other = try generate(v)
        let added = try v.add([
            "class": "keys", "kcls": 1, "type": 73, "bsiz": 256, "tkid": "com.apple.setoken", "extr": false,
            "atag": .data(Data("se".utf8)), "accc": .number(1 << 30), "v_Data": .data(blob), "r_PersistentRef": true,
        ])
        let reference = try #require(added?.dataValue)
        #expect(
            v.status { _ = try sign(v, blob, ["persistentRef": .data(reference)]) } == SecStatus.success,
            ".privateKeyUsage alone asks for nothing")
        #expect(
            v.status { _ = try sign(v, other, ["persistentRef": .data(reference)]) } == SecStatus.itemNotFound,
            "the item holds another key")
        // Access control applies to its use (docs/authentication-table.md): .userPresence with no passcode set is
        // errSecAuthFailed, and with UI forbidden nothing is asked.
        try v.update(["class": "keys", "atag": .data(Data("se".utf8))], ["accc": .number(1 << 30 | 1)])
        let raisedBefore = v.keychain.prompts.raisedCount
        #expect(v.status { _ = try sign(v, blob, ["persistentRef": .data(reference)]) } == SecStatus.authFailed)
        #expect(v.keychain.prompts.raisedCount == raisedBefore, "refused without a prompt")
        try v.delete(["class": "keys", "atag": .data(Data("se".utf8))])
        #expect(v.status { _ = try sign(v, blob, ["persistentRef": .data(reference)]) } == SecStatus.itemNotFound)
        // Key exchange agrees with swift-crypto on the other side.
        let peer = P256.KeyAgreement.PrivateKey()
        let shared = try v.keychain.secureEnclave(
            request(
                "exchange",
                ["blob": .data(blob), "peer": .data(peer.publicKey.x963Representation), "accessibility": "ak"]),
            caller: v.caller
        ).dataValue
        let expected = try peer.sharedSecretFromKeyAgreement(with: .init(x963Representation: blob.prefix(65)))
            .withUnsafeBytes { Data($0) }
        #expect(shared == expected)
    }
}

/// A Secure Enclave key never leaves its device: not in a backup, not in the sync repository (docs/spec.md §10).
@Suite struct SecureEnclaveStaysHomeTests {
    func storedEnclaveKey(_ v: TestVault, synchronizable: Bool) throws {
        let blob = try #require(
            try v.keychain.secureEnclave(["operation": "generate", "accessibility": "ck"], caller: v.caller).dataValue)
        _ = try v.add([
            "class": "keys", "kcls": 1, "type": 73, "bsiz": 256, "tkid": "com.apple.setoken", "extr": false,
            "pdmn": "ck",
            "sync": .number(synchronizable ? 1 : 0), "atag": .data(Data("se".utf8)), "v_Data": .data(blob),
        ])
        _ = try v.add([
            "class": "keys", "kcls": 2, "pdmn": "ck", "sync": .number(synchronizable ? 1 : 0),
            "atag": .data(Data("plain".utf8)),
            "v_Data": .data(Data(repeating: 7, count: 32)),
        ])
    }

    @Test func notInABackup() throws {
        let source = try TestVault()
        try storedEnclaveKey(source, synchronizable: false)
        let password = Data("backup password".utf8)
        let (archive, count) = try source.keychain.backup(password: password)
        #expect(count == 1, "only the software key")
        let target = try TestVault()
        _ = try target.keychain.restore(archive, password: password, merge: false)
        #expect(
            target.status { _ = try target.copy(["class": "keys", "atag": .data(Data("se".utf8))]) }
                == SecStatus.itemNotFound)
        #expect(
            target.status { _ = try target.copy(["class": "keys", "atag": .data(Data("plain".utf8))]) }
                == SecStatus.success)
    }

    @Test func notAmongTheItemsThatSync() throws {
        let v = try TestVault()
        try storedEnclaveKey(v, synchronizable: true)
        let outgoing = try v.keychain.synchronizableItems()
        #expect(outgoing.count == 1, "the synchronizable software key, not the enclave key")
    }
}
