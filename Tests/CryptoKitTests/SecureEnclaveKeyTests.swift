import CryptoKit
import Foundation
import KeychainTesting
import Security
import Testing

/// CryptoKit's Secure Enclave keys beyond the sample: key agreement against swift-crypto, keys that belong to
/// one vault only, blobs that cannot be altered, and hostile data representations.
@Suite struct SecureEnclaveKeyTests {
    @Test func isAvailableAndADefaultKeySignsWithoutPromptingButNotWhileLocked() throws {
        #expect(SecureEnclave.isAvailable)
        let device = try SimulatedDevice(passcode: "1234")
        try device.run {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            let digest = SHA256.hash(data: Data("d".utf8))
            #expect(key.publicKey.isValidSignature(try key.signature(for: digest), for: digest))
            #expect(device.prompts.raisedCount == 0, "`.privateKeyUsage` alone asks for no authentication")
            device.lock()
            #expect(status(of: { _ = try key.signature(for: digest) }) == errSecInteractionNotAllowed)
        }
    }

    @Test func keyAgreementAgreesWithSwiftCrypto() throws {
        let device = try SimulatedDevice()
        try device.run {
            let enclave = try SecureEnclave.P256.KeyAgreement.PrivateKey()
            let peer = P256.KeyAgreement.PrivateKey()
            let ours = try enclave.sharedSecretFromKeyAgreement(with: peer.publicKey)
            let theirs = try peer.sharedSecretFromKeyAgreement(with: enclave.publicKey)
            #expect(ours == theirs)
            let info = Data("session".utf8)
            let a = ours.hkdfDerivedSymmetricKey(
                using: SHA256.self, salt: Data(), sharedInfo: info, outputByteCount: 32)
            let b = theirs.hkdfDerivedSymmetricKey(
                using: SHA256.self, salt: Data(), sharedInfo: info, outputByteCount: 32)
            #expect(a == b)
            let other = P256.KeyAgreement.PrivateKey()
            #expect(try enclave.sharedSecretFromKeyAgreement(with: other.publicKey) != ours)
            let reloaded = try SecureEnclave.P256.KeyAgreement.PrivateKey(
                dataRepresentation: enclave.dataRepresentation)
            #expect(try reloaded.sharedSecretFromKeyAgreement(with: peer.publicKey) == ours)
        }
    }

    @Test func aDataRepresentationIsUselessInAnotherVault() throws {
        let first = try SimulatedDevice()
        let second = try SimulatedDevice()
        let data = try first.run { try SecureEnclave.P256.Signing.PrivateKey().dataRepresentation }
        try second.run {
            let foreign = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
            #expect(status(of: { _ = try foreign.signature(for: Data("m".utf8)) }) == errSecParam)
        }
        try first.run {
            let own = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
            #expect(status(of: { _ = try own.signature(for: Data("m".utf8)) }) == errSecSuccess)
        }
    }

    /// The flags travel in the blob's header, which the seal covers: a key stripped of its Face ID refuses.
    @Test func anAlteredAccessControlBreaksTheKey() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.prompts.automatic = .cancel
        try device.run {
            let access = try #require(
                SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .biometryAny], nil))
            let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
            #expect(status(of: { _ = try key.signature(for: Data("m".utf8)) }) == errSecUserCanceled)
            var data = key.dataRepresentation
            let flagsEnd = 4 + 1 + 8  // magic, version, flags (big-endian): the lowest byte holds biometryAny
            data[flagsEnd - 1] &= ~UInt8(1 << 1)
            let stripped = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data)
            #expect(status(of: { _ = try stripped.signature(for: Data("m".utf8)) }) == errSecParam)
            #expect(device.prompts.raisedCount == 1, "the altered key was refused before any prompt")
        }
    }

    static let hostileRepresentations: [Data] = {
        let magic = Data("kcSE".utf8)
        let wellFormedHeader: Data = magic + Data([1]) + Data(count: 16) + Data([3]) + Data("aku".utf8)
        return [
            Data(), Data([0x04]) + Data(count: 104), magic, magic + Data(count: 200),
            wellFormedHeader + Data([0x04]) + Data(count: 64) + Data([1, 2]),  // not a point on the curve
            Data((0..<300).map { UInt8($0 & 0xff) }),
        ]
    }()

    @Test(arguments: hostileRepresentations)
    func hostileDataRepresentationsAreRefusedNeverCrash(_ data: Data) throws {
        let device = try SimulatedDevice()
        device.run {
            #expect(
                status(of: { _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data) }) == errSecParam)
            #expect(
                status(of: { _ = try SecureEnclave.P256.KeyAgreement.PrivateKey(dataRepresentation: data) })
                    == errSecParam)
        }
    }
}
