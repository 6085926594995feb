// A server's start as swift-nio code writes it, on the test kit's simulated device: the database password
// is read from the keychain on an event loop (and refused once the device locks), the server's certificate,
// made with swift-certificates, is stored with SecItemAdd and read back as a SecCertificate, and
// LocalAuthentication answers for the device, and CryptoKit's Secure Enclave signs. Exits non-zero if any of
// it differs.
import CryptoKit
import Foundation
import KeychainTesting
import LocalAuthentication
import NIOCore
import NIOPosix
import Security
import SwiftASN1
import SystemPackage
import X509

enum ServerAppError: Error { case keychain(OSStatus), noCertificate }

func storePassword(_ password: String, account: String) throws {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "db.example.com",
        kSecAttrAccount as String: account, kSecValueData as String: Data(password.utf8),
    ]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw ServerAppError.keychain(status) }
}

func readPassword(account: String) -> Result<String, ServerAppError> {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "db.example.com",
        kSecAttrAccount as String: account, kSecReturnData as String: true,
    ]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let data = result as? Data else { return .failure(.keychain(status)) }
    return .success(String(decoding: data, as: UTF8.self))
}

/// A self-signed certificate for the server, as X509 makes one, in DER.
func serverCertificate() throws -> [UInt8] {
    let key = P256.Signing.PrivateKey()
    let name = try DistinguishedName { CommonName("server.example.com") }
    let now = Date()
    let certificate = try Certificate(
        version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
        notValidBefore: now, notValidAfter: now.addingTimeInterval(3600), issuer: name, subject: name,
        signatureAlgorithm: .ecdsaWithSHA256, extensions: Certificate.Extensions {}, issuerPrivateKey: .init(key))
    var serializer = DER.Serializer()
    try serializer.serialize(certificate)
    return serializer.serializedBytes
}

/// Stores `der` as a certificate item and reads it back by its label as a SecCertificate.
func roundTrip(_ der: [UInt8]) throws -> [UInt8] {
    guard let certificate = SecCertificateCreateWithData(nil, Data(der) as CFData) else {
        throw ServerAppError.noCertificate
    }
    let added = SecItemAdd(
        [
            kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
            kSecAttrLabel as String: "server",
        ] as CFDictionary, nil)
    guard added == errSecSuccess else { throw ServerAppError.keychain(added) }
    var result: CFTypeRef?
    let found = SecItemCopyMatching(
        [
            kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "server",
            kSecReturnRef as String: true,
        ] as CFDictionary, &result)
    guard found == errSecSuccess, let result else { throw ServerAppError.keychain(found) }
    return Array(SecCertificateCopyData(result as! SecCertificate) as Data)
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let device = try SimulatedDevice(passcode: "1234")
let socketPath = FilePath(device.directory).appending("server.sock")
let der = try serverCertificate()
let enclaveSigned = try device.run { () throws -> Bool in
    let key = try SecureEnclave.P256.Signing.PrivateKey()
    let message = Data("hello from the enclave".utf8)
    return key.publicKey.isValidSignature(try key.signature(for: message), for: message)
}
let answers = try device.run { () throws -> (String, [UInt8], Bool, OSStatus) in
    try storePassword("s3cret", account: "app")
    // The read runs on the event loop's thread, inside the device's binding (a task-local does not follow
    // a thread hop, so the loop's closure is bound again).
    let unlocked = try group.next().submit { device.run { readPassword(account: "app") } }.wait().get()
    let certificate = try roundTrip(der)
    let canAuthenticate = LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
    device.lock()
    let locked = try group.next().submit { device.run { readPassword(account: "app") } }.wait()
    guard case .failure(.keychain(let status)) = locked else { return (unlocked, certificate, canAuthenticate, 0) }
    return (unlocked, certificate, canAuthenticate, status)
}
try await group.shutdownGracefully()
print("read \(answers.0 == "s3cret" ? "the stored password" : "something else") next to \(socketPath.lastComponent!)")
print("certificate: \(answers.1 == der ? "the same DER back" : "different bytes")")
print("LAContext can evaluate the passcode policy: \(answers.2)")
print("after lock: \(answers.3)")
print("Secure Enclave signature: \(enclaveSigned ? "verified" : "invalid")")
guard answers.0 == "s3cret", answers.1 == der, answers.2, answers.3 == errSecInteractionNotAllowed, enclaveSigned
else { exit(1) }
