import Crypto
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// What both kinds of Secure Enclave private key are: a bound key's blob (its `dataRepresentation`, which
/// carries its access control) and the LAContext its uses authenticate with.
struct EnclaveKey: Sendable {
    let reference: SecureEnclaveCalls.Key
    /// The public key, x9.63: a valid P-256 point (checked when the key is made or loaded).
    let publicKey: Data

    /// A new key in the Secure Enclave. Without an access control, Apple's default:
    /// kSecAttrAccessibleWhenUnlockedThisDeviceOnly with `.privateKeyUsage`.
    init(
        compactRepresentable: Bool, accessControl: (any SecAccessControlRepresentable)?,
        context: (any LAContextRepresentable)?
    ) throws {
        let protection = Accessibility.whenUnlockedThisDeviceOnly.rawValue
        var access: (protection: String, flags: UInt64) = (protection, 1 << 30)  // .privateKeyUsage
        if let accessControl {
            guard let given = accessControl as? any SecAccessControlProviding else {
                throw EnclaveError.make(KeychainError(SecStatus.param, "the access control is not a SecAccessControl"))
            }
            access = (given.protectionClass, given.flagBits)
        }
        let blob: Data
        do throws(KeychainError) {
            blob = try SecureEnclaveCalls.generate(
                accessibility: access.protection, accessControl: access.flags, compact: compactRepresentable)
        } catch { throw EnclaveError.make(error) }
        try self.init(dataRepresentation: blob, context: context)
    }

    /// A key from its `dataRepresentation`. Only its form is checked here: whether this device's Secure Enclave
    /// made it (and its class is unlocked, and its access control allows the use) is decided when it is used.
    init(dataRepresentation: Data, context: (any LAContextRepresentable)?) throws {
        guard let publicKey = SecureEnclaveBlob.publicKey(of: dataRepresentation),
            dataRepresentation.first != 0x04,  // an item key's blob: a SecKey's, kept in a keychain item
            (try? Crypto.P256.Signing.PublicKey(x963Representation: publicKey)) != nil
        else {
            throw EnclaveError.make(KeychainError(SecStatus.param, "not a Secure Enclave key's data representation"))
        }
        reference = SecureEnclaveCalls.Key(
            blob: dataRepresentation, authenticationContext: context as? any SecAuthenticationContextProviding)
        self.publicKey = publicKey
    }

    var dataRepresentation: Data { reference.blob }

    /// The DER ECDSA signature of `digest`.
    func sign(digest: Data) throws -> Data {
        do throws(KeychainError) { return try SecureEnclaveCalls.sign(reference, digest: digest) } catch {
            throw EnclaveError.make(error)
        }
    }

    /// The ECDH shared secret (x coordinate) with `peer` (x9.63).
    func exchange(peer: Data) throws -> Data {
        do throws(KeychainError) { return try SecureEnclaveCalls.exchange(reference, peer: peer) } catch {
            throw EnclaveError.make(error)
        }
    }
}

/// How the Secure Enclave's refusals are thrown: an NSError in NSOSStatusErrorDomain with the keychain's
/// OSStatus as code (errSecInteractionNotAllowed while the device is locked, errSecUserCanceled for a
/// cancelled Face ID, errSecAuthFailed for a failed one), as Security's SecKey functions report them.
enum EnclaveError {
    static func make(_ error: KeychainError) -> NSError {
        NSError(
            domain: "NSOSStatusErrorDomain", code: Int(error.status),
            userInfo: [
                NSLocalizedDescriptionKey: error.message.isEmpty ? SecStatus.message(of: error.status) : error.message
            ])
    }
}
