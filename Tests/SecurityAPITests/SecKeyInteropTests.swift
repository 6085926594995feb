import Crypto
import Foundation
@testable import Security
import Testing
import KeychainFSTestSupport

/// Interop with implementations that are not ours: the `openssl` command (signatures and RSA
/// ciphertexts, both ways), Python's `cryptography` building Apple's ECIES and ECDH-X9.63 (both ways),
/// and known-answer vectors (cited below).
@Suite struct SecKeyInteropTests {
    // MARK: helpers

    final class Scratch {
        let directory = TestDirectory.root + "/kcfs-interop-" + UUID().uuidString.prefix(8)
        init() { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ name: String, _ data: Data) -> String {
            let path = directory + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
            return path
        }
        func read(_ name: String) -> Data? { FileManager.default.contents(atPath: directory + "/" + name) }
    }

    func openssl(_ arguments: String...) -> CommandResult { openssl(arguments) }
    func openssl(_ arguments: [String]) -> CommandResult { Command.run("/usr/bin/openssl", arguments, timeout: 60) }

    static func hex(_ string: String) throws -> Data { try #require(Data(hex: string), "not hex") }

    /// SubjectPublicKeyInfo DER prefixes of uncompressed P-256 and P-384 points (RFC 5480).
    static let spkiPrefix: [Int: String] = [
        32: "3059301306072a8648ce3d020106082a8648ce3d030107034200",
        48: "3076301006072a8648ce3d020106052b81040022036200",
    ]

    static func python(_ request: [String: Any]) throws -> Data {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/apple_ecies.py").path
        let interpreter = FileManager.default.fileExists(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let input = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let result = Command.run(interpreter, [script], stdin: input, timeout: 60)
        try #require(result.succeeded, "python: \(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
        return try hex(answer["result"] ?? "")
    }

    static func ecKey(_ x963: Data, private isPrivate: Bool) throws -> SecKey {
        try #require(
            SecKeyCreateWithData(
                x963 as CFData,
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                    kSecAttrKeyClass: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
                ] as CFDictionary, nil))
    }

    // MARK: openssl: ECDSA

    @Test(arguments: [
        (256, "sha256", SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        (256, "sha224", .ecdsaSignatureMessageX962SHA224),
        (384, "sha384", .ecdsaSignatureMessageX962SHA384), (384, "sha1", .ecdsaSignatureMessageX962SHA1),
    ])
    func ecdsaWithOpenSSLBothWays(bits: Int, digest: String, algorithm: SecKeyAlgorithm) throws {
        let scratch = Scratch()
        let message = Data("interop message \(bits) \(digest)".utf8)
        let messagePath = scratch.write("msg", message)
        // Ours → openssl.
        let key = TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, bits)
        let publicX963 = try #require(SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil) as Data?)
        let spki = try Self.hex(Self.spkiPrefix[bits / 8]!) + publicX963
        let publicPath = scratch.write("pub.der", spki)
        let signature = try #require(SecKeyCreateSignature(key, algorithm, message as CFData, nil) as Data?)
        let signaturePath = scratch.write("sig", signature)
        let verified = openssl(
            "dgst", "-\(digest)", "-verify", publicPath, "-keyform", "DER", "-signature", signaturePath, messagePath)
        #expect(verified.stdout.contains("Verified OK"), "openssl: \(verified.stdout) \(verified.stderr)")
        // A tampered message fails in openssl too (the check can fail).
        let other = scratch.write("other", message + Data([0]))
        #expect(
            !openssl("dgst", "-\(digest)", "-verify", publicPath, "-keyform", "DER", "-signature", signaturePath, other)
                .succeeded)
        // openssl → ours.
        let curve = bits == 256 ? "prime256v1" : "secp384r1"
        let keyPath = scratch.directory + "/k.pem"
        try expectSuccess(openssl("ecparam", "-name", curve, "-genkey", "-noout", "-out", keyPath))
        try expectSuccess(
            openssl("ec", "-in", keyPath, "-pubout", "-outform", "DER", "-out", scratch.directory + "/theirs.der"))
        try expectSuccess(
            openssl("dgst", "-\(digest)", "-sign", keyPath, "-out", scratch.directory + "/theirs.sig", messagePath))
        let theirPublic = try #require(scratch.read("theirs.der")).suffix(1 + 2 * bits / 8)
        let theirSignature = try #require(scratch.read("theirs.sig"))
        let theirKey = try Self.ecKey(Data(theirPublic), private: false)
        var error: Unmanaged<CFError>?
        #expect(SecKeyVerifySignature(theirKey, algorithm, message as CFData, theirSignature as CFData, &error))
        #expect(
            !SecKeyVerifySignature(
                theirKey, algorithm, (message + Data([1])) as CFData, theirSignature as CFData, &error))
    }

    // MARK: openssl: RSA signatures and ciphertexts

    static let rsaCases: [(SecKeyAlgorithm, [String])] = [
        (.rsaSignatureMessagePKCS1v15SHA256, ["-sha256"]),
        (.rsaSignatureMessagePKCS1v15SHA224, ["-sha224"]),
        (
            .rsaSignatureMessagePSSSHA256,
            [
                "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-sigopt",
                "rsa_mgf1_md:sha256",
            ]
        ),
        (
            .rsaSignatureMessagePSSSHA512,
            [
                "-sha512", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:64", "-sigopt",
                "rsa_mgf1_md:sha512",
            ]
        ),
    ]

    @Test(arguments: 0..<rsaCases.count)
    func rsaSignaturesWithOpenSSLBothWays(index: Int) throws {
        let (algorithm, options) = Self.rsaCases[index]
        let scratch = Scratch()
        let key = TestKeys.rsa2048
        let privatePath = try Self.rsaPEM(key, scratch)
        let publicPath = scratch.directory + "/pub.pem"
        try expectSuccess(openssl(["rsa", "-in", privatePath, "-pubout", "-out", publicPath]))
        let message = Data("rsa interop \(index)".utf8)
        let messagePath = scratch.write("msg", message)
        let signature = try #require(SecKeyCreateSignature(key, algorithm, message as CFData, nil) as Data?)
        let ours = scratch.write("sig", signature)
        let verified = openssl(["dgst"] + options + ["-verify", publicPath, "-signature", ours, messagePath])
        #expect(verified.stdout.contains("Verified OK"), "\(algorithm.rawValue): \(verified.stderr)")
        try expectSuccess(
            openssl(
                ["dgst"] + options + ["-sign", privatePath, "-out", scratch.directory + "/theirs.sig", messagePath]))
        let theirs = try #require(scratch.read("theirs.sig"))
        var error: Unmanaged<CFError>?
        #expect(
            SecKeyVerifySignature(SecKeyCopyPublicKey(key)!, algorithm, message as CFData, theirs as CFData, &error),
            "\(algorithm.rawValue)")
    }

    @Test(arguments: [
        (SecKeyAlgorithm.rsaEncryptionPKCS1, ["-pkeyopt", "rsa_padding_mode:pkcs1"]),
        (.rsaEncryptionOAEPSHA1, ["-pkeyopt", "rsa_padding_mode:oaep"]),
        (
            .rsaEncryptionOAEPSHA256,
            ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"]
        ),
        (
            .rsaEncryptionOAEPSHA512,
            ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha512", "-pkeyopt", "rsa_mgf1_md:sha512"]
        ),
    ])
    func rsaCiphertextsWithOpenSSLBothWays(algorithm: SecKeyAlgorithm, options: [String]) throws {
        let scratch = Scratch()
        let key = TestKeys.rsa2048
        let privatePath = try Self.rsaPEM(key, scratch)
        let plaintext = Data("rsa ciphertext interop".utf8)
        let ciphertext = try #require(
            SecKeyCreateEncryptedData(SecKeyCopyPublicKey(key)!, algorithm, plaintext as CFData, nil) as Data?)
        let ours = scratch.write("ct", ciphertext)
        try expectSuccess(
            openssl(
                ["pkeyutl", "-decrypt", "-inkey", privatePath, "-in", ours, "-out", scratch.directory + "/pt"] + options
            ))
        #expect(scratch.read("pt") == plaintext, "openssl decrypts ours")
        let plainPath = scratch.write("plain", plaintext)
        try expectSuccess(
            openssl(
                ["pkeyutl", "-encrypt", "-inkey", privatePath, "-in", plainPath, "-out", scratch.directory + "/theirs"]
                    + options))
        let theirs = try #require(scratch.read("theirs"))
        #expect(
            SecKeyCreateDecryptedData(key, algorithm, theirs as CFData, nil) as Data? == plaintext,
            "we decrypt openssl's")
    }

    /// A PEM copy of a test RSA key for openssl (PKCS#1 DER is Apple's external representation).
    static func rsaPEM(_ key: SecKey, _ scratch: Scratch) throws -> String {
        let der = scratch.write("key.der", try #require(SecKeyCopyExternalRepresentation(key, nil) as Data?))
        let pem = scratch.directory + "/key.pem"
        try expectSuccess(
            Command.run("/usr/bin/openssl", ["rsa", "-inform", "DER", "-in", der, "-out", pem], timeout: 60))
        return pem
    }

    // MARK: Python cryptography: ECIES and ECDH-X9.63

    @Test(arguments: [
        SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA384AESGCM, .eciesEncryptionCofactorX963SHA1AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA224AESGCM,
    ])
    func eciesWithPythonBothWays(algorithm: SecKeyAlgorithm) throws {
        guard case .ecies(_, let hash, let variableIV)? = KeyAlgorithmSpec(algorithm) else {
            Issue.record("not ECIES"); return
        }
        for bits in [256, 384, 521] {
            let key = TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, bits)
            let publicX963 = SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data
            let plaintext = Data("ecies interop \(bits)".utf8)
            // Python encrypts for our key, we decrypt.
            let theirs = try Self.python([
                "op": "ecies-encrypt", "hash": hash.rawValue, "variableIV": variableIV,
                "recipient": publicX963.hex, "plaintext": plaintext.hex,
            ])
            #expect(
                SecKeyCreateDecryptedData(key, algorithm, theirs as CFData, nil) as Data? == plaintext,
                "\(algorithm.rawValue) P-\(bits)")
            // We encrypt for Python's key, Python decrypts.
            let pythonKey = try Self.python(["op": "keygen", "bits": bits])
            let recipient = try Self.ecKey(Data(pythonKey.prefix(1 + 2 * (pythonKey.count - 1) / 3)), private: false)
            let ours = try #require(SecKeyCreateEncryptedData(recipient, algorithm, plaintext as CFData, nil) as Data?)
            let decrypted = try Self.python([
                "op": "ecies-decrypt", "hash": hash.rawValue, "variableIV": variableIV,
                "key": pythonKey.hex, "ciphertext": ours.hex,
            ])
            #expect(decrypted == plaintext, "\(algorithm.rawValue) P-\(bits)")
        }
    }

    @Test(arguments: [
        SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA512, .ecdhKeyExchangeStandard,
    ])
    func ecdhWithPythonBothWays(algorithm: SecKeyAlgorithm) throws {
        guard case .ecdh(_, let kdf)? = KeyAlgorithmSpec(algorithm) else { Issue.record("not ECDH"); return }
        let mine = TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, 384)
        let theirs = try Self.python(["op": "keygen", "bits": 384])
        let theirPublic = Data(theirs.prefix(97))
        let myPublic = SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(mine)!, nil)! as Data
        let info = Data("shared info".utf8)
        let parameters =
            [
                SecKeyKeyExchangeParameter.requestedSize.rawValue: 40,
                SecKeyKeyExchangeParameter.sharedInfo.rawValue: info,
            ] as [CFString: Any]
        let ours = try #require(
            SecKeyCopyKeyExchangeResult(
                mine, algorithm, try Self.ecKey(theirPublic, private: false), parameters as CFDictionary, nil) as Data?)
        var request: [String: Any] = [
            "op": "ecdh", "key": theirs.hex, "peer": myPublic.hex, "size": 40, "sharedInfo": info.hex,
        ]
        if let kdf { request["hash"] = kdf.rawValue }
        #expect(try Self.python(request) == ours)
    }

    // MARK: known-answer vectors

    /// Source: computed by Tests/Interop/apple_ecies.py (python3-cryptography 38.0.4, Debian 12) with the
    /// fixed recipient scalar 0x11…11 and fixed ephemeral scalar 0x22…22 on P-256, plaintext
    /// "keychainfs known answer". Our encryption with the same ephemeral key must give the same bytes.
    static let recipient =
        "040217e617f0b6443928278f96999e69a23a4f2c152bdf6d6cdf66e5b80282d4ed194a7debcb97712d2dda3ca85aa8765a56f45fc758599652f2897c65306e5794"
        + String(repeating: "11", count: 32)
    static let ephemeral =
        "04d65a93977caa3d1b081852ff57a79e465f1660577304baead505dd3a48589cf350185e895372df6221ea3a137557e473fddb6755f05bd507c3c533fce9c91285"
        + String(repeating: "22", count: 32)
    static let fixedVectors: [(SecKeyAlgorithm, String)] = [
        (
            .eciesEncryptionStandardX963SHA256AESGCM,
            "b575b4faf1bb7ec18bda24f54466b5a5ac1289f31ebd6428f42f95202a5763a0e507bfa22387f3"
        ),
        (
            .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
            "2a34fbef20cea623da7cc52c920e48e1046e8fd39fecaeb0f315207b05eb48c2e648caa53a78ef"
        ),
        (
            .eciesEncryptionStandardX963SHA1AESGCM,
            "7f772c500cc6b7656f8da78d7009df37cf8a25934651bcd2815027f85ef8ffd9aeb615f883498b"
        ),
    ]

    @Test func eciesKnownAnswersWithAFixedEphemeralKey() throws {
        let recipientBytes = try Self.hex(Self.recipient), ephemeralBytes = try Self.hex(Self.ephemeral)
        let recipient = try #require(ECKeyMaterial(x963: recipientBytes, isPrivate: true))
        let ephemeral = try #require(ECKeyMaterial(x963: ephemeralBytes, isPrivate: true))
        let plaintext = Data("keychainfs known answer".utf8)
        for (algorithm, body) in Self.fixedVectors {
            guard case .ecies(_, let hash, let variableIV)? = KeyAlgorithmSpec(algorithm) else {
                Issue.record("not ECIES"); continue
            }
            let expected = try Self.hex(String(Self.ephemeral.prefix(130)) + body)
            let packet = try SecKeyCrypto.eciesEncrypt(
                plaintext, to: recipient.publicKey, ephemeral: ephemeral, hash: hash, variableIV: variableIV)
            #expect(packet == expected, "\(algorithm.rawValue)")
            let key = try Self.ecKey(try Self.hex(Self.recipient), private: true)
            #expect(SecKeyCreateDecryptedData(key, algorithm, expected as CFData, nil) as Data? == plaintext)
        }
        // ECDH X9.63-SHA256 of the same two keys, 32 bytes, shared info "info" (same source).
        let ours = try #require(
            SecKeyCopyKeyExchangeResult(
                try Self.ecKey(try Self.hex(Self.recipient), private: true), .ecdhKeyExchangeStandardX963SHA256,
                try Self.ecKey(try Self.hex(String(Self.ephemeral.prefix(130))), private: false),
                [
                    SecKeyKeyExchangeParameter.requestedSize.rawValue: 32,
                    SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("info".utf8),
                ] as [CFString: Any] as CFDictionary, nil) as Data?)
        #expect(ours.hex == "565f76936477a8a449f31b27114f06181d38b808c61adf1ac2e9e41578ad6fea")
    }

    /// Ciphertexts made by Apple's SecKeyCreateEncryptedData on Apple hardware, with their recipients'
    /// SEC1 keys; the plaintext is the vector's name. Source: github.com/jedda/ECIES, ecies_test.go,
    /// TestExternalDecryptSuccess (MIT License, © 2024 Jedda Wignall).
    static let appleVectors: [(String, SecKeyAlgorithm, String, String)] = [
        (
            "P256-SHA224-0IV", .eciesEncryptionCofactorX963SHA224AESGCM,
            "MHcCAQEEIJyzfcyptwjYkgdcFhfJlztLPmcfyzyCFs7NoQuCbAAhoAoGCCqGSM49AwEHoUQDQgAE7WttwmG8qki5bU2utMaugBWbWD9Jx/UPzgnGxthgHteyqPGofBjBwPZTbxj+lrIGNyHRdbOkSusD7051WG8nmg==",
            "BPIMheQOrz0l9wEjcOHQEQ16D9Go8Sm8bEM3LAgMEHUf/eHy3u0oVlfh2po9ocPCuKG2bQ28wlsQ0N6SNJ3O3auS/QeoUogLVcJ3+R1OOeixEJyqeUkn6zB8LcqoZ+Y2"
        ),
        (
            "P256-SHA256-VIV", .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
            "MHcCAQEEIHGhxnpu3kG/nW5ozDZJ+TTFQvL6MynCcQWD6jHV4p0UoAoGCCqGSM49AwEHoUQDQgAEzgFYw3Rqc72IIYHV7JH6M245n/nLnxyre1A7sc5nOt31ZyfJQLXGs4dY0cggne28ueXHID5lKz1JNChY49NHYg==",
            "BI6sBCGyf916GQSV3DHOvmFxOmzbV9pq08wcOdKaepP2/Qtepj9M71dYkzXf6OqIstDyyVIxfnAMfUpxZzoCHDbalYRzzwhqHwg7K6RNl1F29PVdLNtJH498yJSfloW/"
        ),
        (
            "P384-SHA384-VIV", .eciesEncryptionCofactorVariableIVX963SHA384AESGCM,
            "MIGkAgEBBDC5Lt6wBRiiEC2O71i3lv8Jtgg+YP4Y3gCj7B7nOtdQO/5PQPRjpFPJ3ft0yjbzHEagBwYFK4EEACKhZANiAAToVnztZKN1KVhot+MoN3CiPDZ0PoCDXrdP1uHQ61nz4XVrNdxgxyNUJC6cd0gsbujme66wxrq28zqWYBKvrFtIlS4W+NkuyCi5nABkHno7alAWv/fD7aQ8A3ZmWZohsaU=",
            "BM45TREbxELfwpTVBmltz+sB3vhkM85m/yiAsE8JSNmXVOeeUGzmxP5Z2jegApPxtOS8ilfhTN/m2XkOoJWGw3MKuekq5V5PcdvAi5xKcoOEynkS7uAKS3nhBH/+g+9/iNoTcRSrEpbgm8dOCGe+VRQ7hK8vI0ZRw74kernlNDw="
        ),
        (
            "P521-SHA512-0IV", .eciesEncryptionCofactorX963SHA512AESGCM,
            "MIHcAgEBBEIAqKpwdZ9JdC3JdVpM7gj1Bgkep3LNTkYWqEYqwNe5w7oyzDh1yU0LVZzefyZNdaagU6DGNdZ+5u9cHqnh9GrQ5gWgBwYFK4EEACOhgYkDgYYABAD+MDxfbvbe9ZRZcZgWyDBbpf3JxHii0iScjxNqNWClJWlehHfX8niGE6VNktRQ3lMIwDSvUy3Esiex3gu8RHZnwAGzPjwLm1/w2YbOfp2TCNTL8m6eYUfLU0SNW7B61koL+Sk50yTHoseP7+lmM2t8x6uKsyLdo+XCIevpW8IEh0s5wg==",
            "BABqJoMa89aD0rRkZ+WrmWTeqUfcr3uvLmyk7KlbWPm45m0ptDeqsaxFtqeM0VR6IoBMQcvcCcW+hzlLPr7i15LJlADzKYe7al7Vp10fJBnnhM2K7Z12o/VtOynEEt+ed5IkP9BiopN/3swl79caHQqXxX+SWQijwosMh0rGFJZPjsPFcPpe8Aj9CiJ3y0hRH1D4fp+qtpx9LOBLyuXvRwdFi0Y="
        ),
    ]

    @Test(arguments: 0..<appleVectors.count)
    func decryptsCiphertextsMadeByApplesSecurityFramework(index: Int) throws {
        let (name, algorithm, sec1, ciphertext) = Self.appleVectors[index]
        let der = try #require(Data(base64Encoded: sec1))
        let x963: Data =
            switch name.prefix(4) {
            case "P256":
                try {
                    let k = try P256.Signing.PrivateKey(derRepresentation: der);
                    return k.publicKey.x963Representation + k.rawRepresentation
                }()
            case "P384":
                try {
                    let k = try P384.Signing.PrivateKey(derRepresentation: der);
                    return k.publicKey.x963Representation + k.rawRepresentation
                }()
            default:
                try {
                    let k = try P521.Signing.PrivateKey(derRepresentation: der);
                    return k.publicKey.x963Representation + k.rawRepresentation
                }()
            }
        let key = try Self.ecKey(x963, private: true)
        var error: Unmanaged<CFError>?
        let plaintext =
            SecKeyCreateDecryptedData(key, algorithm, try #require(Data(base64Encoded: ciphertext)) as CFData, &error)
            as Data?
        #expect(plaintext == Data(name.utf8), "\(name): \(String(describing: code(error)))")
    }
}

extension Data {
    init?(hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
