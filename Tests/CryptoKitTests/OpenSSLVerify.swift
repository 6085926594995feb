import CryptoKit
import Foundation
import KeychainFSTestSupport
import Synchronization

/// `openssl dgst -sha256 -verify`: another implementation's verdict on a P-256 ECDSA signature.
enum OpenSSLVerify {
    static func verifies(_ signature: P256.Signing.ECDSASignature, of message: Data, by key: P256.Signing.PublicKey)
        throws -> Bool
    {
        let directory = TestDirectory.root + "/openssl-verify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try key.pemRepresentation.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
        try signature.derRepresentation.write(to: URL(fileURLWithPath: directory + "/signature.der"))
        try message.write(to: URL(fileURLWithPath: directory + "/message"))
        let run = Command.run(
            "/usr/bin/openssl",
            [
                "dgst", "-sha256", "-verify", directory + "/key.pem", "-signature", directory + "/signature.der",
                directory + "/message",
            ])
        return run.succeeded && run.stdout.contains("Verified OK")
    }
}

/// A value shared with a completion handler.
final class LockedBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
