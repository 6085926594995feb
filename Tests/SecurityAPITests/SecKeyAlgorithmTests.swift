import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// Keys made with SecKeyCreateRandomKey, in this process only (not permanent).
enum TestKeys {
    static func make(_ type: CFString, _ bits: Int) -> SecKey {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey([kSecAttrKeyType: type, kSecAttrKeySizeInBits: bits] as CFDictionary, &error)
        precondition(key != nil, "key generation failed: \(String(describing: error))")
        return key!
    }
    static let ec256 = make(kSecAttrKeyTypeECSECPrimeRandom, 256)
    static let ec384 = make(kSecAttrKeyTypeECSECPrimeRandom, 384)
    static let ec521 = make(kSecAttrKeyTypeECSECPrimeRandom, 521)
    static let rsa1024 = make(kSecAttrKeyTypeRSA, 1024)
    static let rsa2048 = make(kSecAttrKeyTypeRSA, 2048)

    static func name(_ algorithm: SecKeyAlgorithm) -> String { algorithm.rawValue as String }
    static func family(_ prefix: String) -> [SecKeyAlgorithm] {
        SecKeyAlgorithm.allKnown.filter { name($0).hasPrefix(prefix) }
    }
}

/// The status code of an Apple-style error out-parameter.
func code(_ error: Unmanaged<CFError>?) -> Int? { error.map { CFErrorGetCode($0.takeRetainedValue()) } }

@Suite struct SecKeyAlgorithmTests {
    @Test func everyAlgorithmIsKnownAndServesItsKeyType() {
        #expect(SecKeyAlgorithm.allKnown.count == 87)
        #expect(kSecKeyAlgorithmECDSASignatureMessageX962SHA256 == .ecdsaSignatureMessageX962SHA256)
        #expect(TestKeys.name(.rsaEncryptionOAEPSHA256) == "algid:encrypt:RSA:OAEP:SHA256")
        let ecPrivate = TestKeys.ec256, rsaPrivate = TestKeys.rsa2048
        for algorithm in SecKeyAlgorithm.allKnown {
            let name = TestKeys.name(algorithm)
            let (key, operation): (SecKey, SecKeyOperationType) =
                switch name {
                case let n where n.contains(":sign:"): (n.contains("RSA") ? rsaPrivate : ecPrivate, .sign)
                case let n where n.contains(":encrypt:"): (n.contains("RSA") ? rsaPrivate : ecPrivate, .decrypt)
                default: (ecPrivate, .keyExchange)
                }
            // No constant is declared and then refused (a 2048-bit key takes every RSA padding).
            #expect(SecKeyIsAlgorithmSupported(key, operation, algorithm), "\(name)")
            #expect(
                !SecKeyIsAlgorithmSupported(key === ecPrivate ? rsaPrivate : ecPrivate, operation, algorithm)
                    || operation == .keyExchange,
                "\(name) on the other key type")
        }
    }

    @Test(arguments: TestKeys.family("algid:sign:"))
    func signatureRoundTripTamperAndWrongKeyClass(algorithm: SecKeyAlgorithm) throws {
        let name = TestKeys.name(algorithm)
        for key in name.contains(":RSA:") ? [TestKeys.rsa2048] : [TestKeys.ec256, TestKeys.ec384, TestKeys.ec521] {
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let digestSize =
                [("SHA1", 20), ("SHA224", 28), ("SHA256", 32), ("SHA384", 48), ("SHA512", 64)].first {
                    name.hasSuffix($0.0) || name.contains(":\($0.0):")
                }?.1 ?? 32
            var input = Data((0..<(name.contains("message") ? 100 : digestSize)).map { UInt8($0 & 0xff) })
            if name.hasSuffix(":raw") { input = Data([0x01, 0x02, 0x03]) }
            var error: Unmanaged<CFError>?
            let signature = try #require(
                SecKeyCreateSignature(key, algorithm, input as CFData, &error) as Data?,
                "\(name): \(String(describing: code(error)))")
            #expect(
                SecKeyVerifySignature(publicKey, algorithm, input as CFData, signature as CFData, &error), "\(name)")
            var tampered = signature
            tampered[tampered.count - 1] ^= 0x5A
            error = nil
            #expect(
                !SecKeyVerifySignature(publicKey, algorithm, input as CFData, tampered as CFData, &error),
                "\(name): tampered")
            #expect(code(error) == Int(errSecVerifyFailed), "\(name): errSecVerifyFailed")
            error = nil
            #expect(
                SecKeyCreateSignature(publicKey, algorithm, input as CFData, &error) == nil
                    && code(error) == Int(errSecParam), "\(name): a public key does not sign")
        }
    }

    @Test func rfc4754SignaturesAreFixedWidthAndX962AreDER() throws {
        for (key, size) in [(TestKeys.ec256, 32), (TestKeys.ec384, 48), (TestKeys.ec521, 66)] {
            let raw = try #require(
                SecKeyCreateSignature(key, .ecdsaSignatureMessageRFC4754SHA256, Data("m".utf8) as CFData, nil) as Data?)
            #expect(raw.count == 2 * size)
            let der = try #require(
                SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, nil) as Data?)
            #expect(der.first == 0x30)
        }
    }

    @Test func digestOfTheWrongSizeIsErrSecParam() {
        var error: Unmanaged<CFError>?
        #expect(
            SecKeyCreateSignature(TestKeys.ec256, .ecdsaSignatureDigestX962SHA256, Data(count: 20) as CFData, &error)
                == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test(arguments: TestKeys.family("algid:encrypt:"))
    func encryptionRoundTripAndErrors(algorithm: SecKeyAlgorithm) throws {
        let name = TestKeys.name(algorithm)
        let keys = name.contains(":RSA:") ? [TestKeys.rsa2048] : [TestKeys.ec256, TestKeys.ec384, TestKeys.ec521]
        for key in keys {
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            var plaintext = Data("attack at dawn".utf8)
            if name.hasSuffix(":raw") { plaintext = Data([0x00, 0x11]) + Data(repeating: 0x42, count: 200) }
            var error: Unmanaged<CFError>?
            let ciphertext = try #require(
                SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, &error) as Data?,
                "\(name): \(String(describing: code(error)))")
            let decrypted = try #require(
                SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, &error) as Data?, "\(name)")
            #expect(
                name.hasSuffix(":raw")
                    ? decrypted.drop { $0 == 0 } == plaintext.drop { $0 == 0 } : decrypted == plaintext, "\(name)")
            error = nil
            #expect(
                SecKeyCreateEncryptedData(key, algorithm, plaintext as CFData, &error) == nil
                    && code(error) == Int(errSecParam), "\(name): a private key does not encrypt")
            if name.contains("AESGCM") {
                var tampered = ciphertext
                tampered[tampered.count - 1] ^= 1
                error = nil
                #expect(
                    SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, &error) == nil
                        && code(error) == Int(errSecParam), "\(name): tampered")
            }
        }
    }

    @Test func tooLongInputAndTooSmallModulusAreApplesErrors() {
        var error: Unmanaged<CFError>?
        let publicKey = SecKeyCopyPublicKey(TestKeys.rsa2048)!
        #expect(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data(count: 246) as CFData, &error) == nil)
        #expect(code(error) == Int(errSecParam), "PKCS#1 takes at most k - 11 bytes")
        // OAEP-SHA512 needs 2·64 + 2 bytes of modulus: a 1024-bit key has 128, so Apple refuses it.
        #expect(!SecKeyIsAlgorithmSupported(SecKeyCopyPublicKey(TestKeys.rsa1024)!, .encrypt, .rsaEncryptionOAEPSHA512))
        error = nil
        #expect(
            SecKeyCreateEncryptedData(
                SecKeyCopyPublicKey(TestKeys.rsa1024)!, .rsaEncryptionOAEPSHA512, Data("x".utf8) as CFData, &error)
                == nil)
        #expect(code(error) == Int(errSecParam))
        error = nil
        #expect(
            SecKeyCreateSignature(TestKeys.rsa2048, .ecdsaSignatureMessageX962SHA256, Data() as CFData, &error) == nil
                && code(error) == Int(errSecParam), "wrong key type")
        error = nil
        #expect(
            SecKeyCreateSignature(
                TestKeys.ec256, SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:nonsense" as CFString), Data() as CFData,
                &error) == nil)
        #expect(code(error) == Int(errSecParam), "unknown algorithm")
    }

    @Test(arguments: TestKeys.family("algid:keyexchange:"))
    func keyExchangeAgreesBothWays(algorithm: SecKeyAlgorithm) throws {
        for (mine, theirs) in [
            (TestKeys.ec256, TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, 256)),
            (TestKeys.ec521, TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, 521)),
        ] {
            let parameters =
                [
                    SecKeyKeyExchangeParameter.requestedSize.rawValue: 48,
                    SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("info".utf8),
                ] as [CFString: Any]
            var error: Unmanaged<CFError>?
            let one = try #require(
                SecKeyCopyKeyExchangeResult(
                    mine, algorithm, SecKeyCopyPublicKey(theirs)!, parameters as CFDictionary, &error) as Data?)
            let two = try #require(
                SecKeyCopyKeyExchangeResult(
                    theirs, algorithm, SecKeyCopyPublicKey(mine)!, parameters as CFDictionary, &error) as Data?)
            #expect(one == two)
            #expect(one.count == (TestKeys.name(algorithm).contains("KDFX963") ? 48 : SecKeyGetBlockSize(mine)))
        }
        if TestKeys.name(algorithm).contains("KDFX963") {
            var error: Unmanaged<CFError>?
            #expect(
                SecKeyCopyKeyExchangeResult(
                    TestKeys.ec256, algorithm, SecKeyCopyPublicKey(TestKeys.ec256)!, [:] as CFDictionary, &error) == nil
            )
            #expect(code(error) == Int(errSecParam), "requestedSize is required")
        }
    }

    @Test func generationRulesAndExternalRepresentations() throws {
        var error: Unmanaged<CFError>?
        #expect(
            SecKeyCreateRandomKey(
                [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 256] as CFDictionary, &error) == nil)
        #expect(code(error) == Int(errSecKeySizeNotAllowed), "Apple: RSA keys are 512…8192 bits")
        error = nil
        #expect(
            SecKeyCreateRandomKey(
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 255] as CFDictionary, &error)
                == nil)
        #expect(code(error) == Int(errSecParam))
        for bits in [2048, 3072, 4096] {
            let key = TestKeys.make(kSecAttrKeyTypeRSA, bits)
            #expect(SecKeyGetBlockSize(key) == bits / 8)
        }
        let ec = TestKeys.ec384
        let x963 = try #require(SecKeyCopyExternalRepresentation(ec, nil) as Data?)
        #expect(x963.count == 1 + 3 * 48 && x963.first == 0x04)
        let again = try #require(
            SecKeyCreateWithData(
                x963 as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
                    as CFDictionary, nil))
        #expect(again == ec)
        let attributes = try #require(SecKeyCopyAttributes(ec) as? [String: Any])
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 384)
        error = nil
        #expect(
            SecKeyCreateWithData(
                Data(count: 32) as CFData,
                [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
                    as CFDictionary, &error) == nil)
        #expect(code(error) == Int(errSecParam), "32 zero bytes are no x9.63 key")
        #expect(CFGetTypeID(ec) == SecKeyGetTypeID())
    }

    @Test func permanentPairIsStoredLikeAnAdd() throws {
        _ = InProcessVault.path
        let tag = Data("perm.\(UUID().uuidString)".utf8)
        let key = try #require(
            SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                    kSecAttrIsPermanent: true, kSecAttrLabel: "both", kSecAttrApplicationTag: tag,
                ] as CFDictionary, nil))
        var result: CFTypeRef?
        #expect(
            SecItemCopyMatching(
                [
                    kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnAttributes: true,
                    kSecMatchLimit: kSecMatchLimitAll,
                ] as CFDictionary, &result) == errSecSuccess)
        let items = try #require(result as? [[String: Any]])
        #expect(items.count == 2, "private and public key")
        let publicBytes = SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data
        let label = try #require(items.first?[kSecAttrApplicationLabel as String] as? Data)
        #expect(
            items.allSatisfy {
                $0[kSecAttrApplicationLabel as String] as? Data == label
                    && $0[kSecAttrLabel as String] as? String == "both"
            })
        #expect(label.count == 20 && publicBytes.count == 65)
        #expect(SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) == errSecSuccess)
        let transient = TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, 256)
        #expect(SecKeyCopyAttributes(transient) != nil)
    }
}
