import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore

/// Certificate DER (what `cert/.../value` and kSecValueData of a certificate take) and key representations
/// (x963 EC keys, PKCS#1 RSA keys), parsed as the engine derives attributes from them.
enum DERTarget {
    static func run(_ data: Data) {
        _ = CertificateInterpreter.attributes(of: data)
        var certificate: [String: KeychainValue] = [:]
        try? CertificateInterpreter.interpreter.apply(data, to: &certificate, schema: Schema.certificate)
        _ = KeyInterpreter.publicKeyBytes(data, isPrivate: false)
        _ = KeyInterpreter.publicKeyBytes(data, isPrivate: true)
        var key: [String: KeychainValue] = [Attributes.keyClass.code: .number(Int64(data.first ?? 0) % 3)]
        try? KeyInterpreter.interpreter.apply(data, to: &key, schema: Schema.key)
    }
}
