import Foundation

// Every SecKeyAlgorithm Apple defines for RSA and elliptic-curve keys, with Apple's raw values (SecKey.h,
// SecKey.c): the type with static members Swift code writes (`.ecdsaSignatureMessageX962SHA256`) and the
// `kSecKeyAlgorithm…` globals C-style code writes. Each raw value is also the algorithm's description,
// parsed by ``KeyAlgorithmSpec``: nothing about an algorithm is written twice.

/// An algorithm for SecKey operations (Apple's `SecKeyAlgorithm`).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's identifier, such as `algid:sign:ECDSA:message-X962:SHA256`.
    public let rawValue: CFString
    /// The algorithm named `rawValue`.
    public init(rawValue: CFString) { self.rawValue = rawValue }
    /// The algorithm named `rawValue`.
    public init(_ rawValue: CFString) { self.rawValue = rawValue }

    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool {
        String(lhs.rawValue) == String(rhs.rawValue)
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(String(rawValue)) }
}

extension SecKeyAlgorithm {
    /// `algid:sign:RSA:raw`.
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    /// `algid:sign:RSA:digest-PKCS1v15`.
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    /// `algid:sign:RSA:digest-PKCS1v15:SHA1`.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// `algid:sign:RSA:digest-PKCS1v15:SHA224`.
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// `algid:sign:RSA:digest-PKCS1v15:SHA256`.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// `algid:sign:RSA:digest-PKCS1v15:SHA384`.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// `algid:sign:RSA:digest-PKCS1v15:SHA512`.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// `algid:sign:RSA:message-PKCS1v15:SHA1`.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    /// `algid:sign:RSA:message-PKCS1v15:SHA224`.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    /// `algid:sign:RSA:message-PKCS1v15:SHA256`.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    /// `algid:sign:RSA:message-PKCS1v15:SHA384`.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    /// `algid:sign:RSA:message-PKCS1v15:SHA512`.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    /// `algid:sign:RSA:digest-PSS:SHA1:SHA1:20`.
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// `algid:sign:RSA:digest-PSS:SHA224:SHA224:24`.
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// `algid:sign:RSA:digest-PSS:SHA256:SHA256:32`.
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// `algid:sign:RSA:digest-PSS:SHA384:SHA384:48`.
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// `algid:sign:RSA:digest-PSS:SHA512:SHA512:64`.
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// `algid:sign:RSA:message-PSS:SHA1:SHA1:20`.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// `algid:sign:RSA:message-PSS:SHA224:SHA224:24`.
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// `algid:sign:RSA:message-PSS:SHA256:SHA256:32`.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// `algid:sign:RSA:message-PSS:SHA384:SHA384:48`.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// `algid:sign:RSA:message-PSS:SHA512:SHA512:64`.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// `algid:sign:ECDSA:RFC4754`.
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    /// `algid:sign:ECDSA:digest-X962`.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    /// `algid:sign:ECDSA:digest-X962:SHA1`.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    /// `algid:sign:ECDSA:digest-X962:SHA224`.
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    /// `algid:sign:ECDSA:digest-X962:SHA256`.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    /// `algid:sign:ECDSA:digest-X962:SHA384`.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    /// `algid:sign:ECDSA:digest-X962:SHA512`.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    /// `algid:sign:ECDSA:message-X962:SHA1`.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    /// `algid:sign:ECDSA:message-X962:SHA224`.
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    /// `algid:sign:ECDSA:message-X962:SHA256`.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    /// `algid:sign:ECDSA:message-X962:SHA384`.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    /// `algid:sign:ECDSA:message-X962:SHA512`.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")
    /// `algid:sign:ECDSA:digest-RFC4754`.
    public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754")
    /// `algid:sign:ECDSA:digest-RFC4754:SHA1`.
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA1")
    /// `algid:sign:ECDSA:digest-RFC4754:SHA224`.
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA224")
    /// `algid:sign:ECDSA:digest-RFC4754:SHA256`.
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA256")
    /// `algid:sign:ECDSA:digest-RFC4754:SHA384`.
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA384")
    /// `algid:sign:ECDSA:digest-RFC4754:SHA512`.
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA512")
    /// `algid:sign:ECDSA:message-RFC4754:SHA1`.
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA1")
    /// `algid:sign:ECDSA:message-RFC4754:SHA224`.
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA224")
    /// `algid:sign:ECDSA:message-RFC4754:SHA256`.
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA256")
    /// `algid:sign:ECDSA:message-RFC4754:SHA384`.
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA384")
    /// `algid:sign:ECDSA:message-RFC4754:SHA512`.
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA512")
    /// `algid:encrypt:RSA:raw`.
    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    /// `algid:encrypt:RSA:PKCS1`.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    /// `algid:encrypt:RSA:OAEP:SHA1`.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    /// `algid:encrypt:RSA:OAEP:SHA224`.
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    /// `algid:encrypt:RSA:OAEP:SHA256`.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    /// `algid:encrypt:RSA:OAEP:SHA384`.
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    /// `algid:encrypt:RSA:OAEP:SHA512`.
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    /// `algid:encrypt:RSA:OAEP:SHA1:AESGCM`.
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    /// `algid:encrypt:RSA:OAEP:SHA224:AESGCM`.
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    /// `algid:encrypt:RSA:OAEP:SHA256:AESGCM`.
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// `algid:encrypt:RSA:OAEP:SHA384:AESGCM`.
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    /// `algid:encrypt:RSA:OAEP:SHA512:AESGCM`.
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM`.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM`.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM`.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM`.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM`.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM`.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM`.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM`.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM`.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM`.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV`.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV`.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV`.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV`.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV`.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV`.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV`.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// `algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV`.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")
    /// `algid:keyexchange:ECDH`.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    /// `algid:keyexchange:ECDH:KDFX963:SHA1`.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    /// `algid:keyexchange:ECDH:KDFX963:SHA224`.
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    /// `algid:keyexchange:ECDH:KDFX963:SHA256`.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    /// `algid:keyexchange:ECDH:KDFX963:SHA384`.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    /// `algid:keyexchange:ECDH:KDFX963:SHA512`.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    /// `algid:keyexchange:ECDHC`.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    /// `algid:keyexchange:ECDHC:KDFX963:SHA1`.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// `algid:keyexchange:ECDHC:KDFX963:SHA224`.
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// `algid:keyexchange:ECDHC:KDFX963:SHA256`.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// `algid:keyexchange:ECDHC:KDFX963:SHA384`.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// `algid:keyexchange:ECDHC:KDFX963:SHA512`.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")

    /// Every algorithm above, for tables and tests.
    public static let allKnown: [SecKeyAlgorithm] = [
        .rsaSignatureRaw,
        .rsaSignatureDigestPKCS1v15Raw,
        .rsaSignatureDigestPKCS1v15SHA1,
        .rsaSignatureDigestPKCS1v15SHA224,
        .rsaSignatureDigestPKCS1v15SHA256,
        .rsaSignatureDigestPKCS1v15SHA384,
        .rsaSignatureDigestPKCS1v15SHA512,
        .rsaSignatureMessagePKCS1v15SHA1,
        .rsaSignatureMessagePKCS1v15SHA224,
        .rsaSignatureMessagePKCS1v15SHA256,
        .rsaSignatureMessagePKCS1v15SHA384,
        .rsaSignatureMessagePKCS1v15SHA512,
        .rsaSignatureDigestPSSSHA1,
        .rsaSignatureDigestPSSSHA224,
        .rsaSignatureDigestPSSSHA256,
        .rsaSignatureDigestPSSSHA384,
        .rsaSignatureDigestPSSSHA512,
        .rsaSignatureMessagePSSSHA1,
        .rsaSignatureMessagePSSSHA224,
        .rsaSignatureMessagePSSSHA256,
        .rsaSignatureMessagePSSSHA384,
        .rsaSignatureMessagePSSSHA512,
        .ecdsaSignatureRFC4754,
        .ecdsaSignatureDigestX962,
        .ecdsaSignatureDigestX962SHA1,
        .ecdsaSignatureDigestX962SHA224,
        .ecdsaSignatureDigestX962SHA256,
        .ecdsaSignatureDigestX962SHA384,
        .ecdsaSignatureDigestX962SHA512,
        .ecdsaSignatureMessageX962SHA1,
        .ecdsaSignatureMessageX962SHA224,
        .ecdsaSignatureMessageX962SHA256,
        .ecdsaSignatureMessageX962SHA384,
        .ecdsaSignatureMessageX962SHA512,
        .ecdsaSignatureDigestRFC4754,
        .ecdsaSignatureDigestRFC4754SHA1,
        .ecdsaSignatureDigestRFC4754SHA224,
        .ecdsaSignatureDigestRFC4754SHA256,
        .ecdsaSignatureDigestRFC4754SHA384,
        .ecdsaSignatureDigestRFC4754SHA512,
        .ecdsaSignatureMessageRFC4754SHA1,
        .ecdsaSignatureMessageRFC4754SHA224,
        .ecdsaSignatureMessageRFC4754SHA256,
        .ecdsaSignatureMessageRFC4754SHA384,
        .ecdsaSignatureMessageRFC4754SHA512,
        .rsaEncryptionRaw,
        .rsaEncryptionPKCS1,
        .rsaEncryptionOAEPSHA1,
        .rsaEncryptionOAEPSHA224,
        .rsaEncryptionOAEPSHA256,
        .rsaEncryptionOAEPSHA384,
        .rsaEncryptionOAEPSHA512,
        .rsaEncryptionOAEPSHA1AESGCM,
        .rsaEncryptionOAEPSHA224AESGCM,
        .rsaEncryptionOAEPSHA256AESGCM,
        .rsaEncryptionOAEPSHA384AESGCM,
        .rsaEncryptionOAEPSHA512AESGCM,
        .eciesEncryptionStandardX963SHA1AESGCM,
        .eciesEncryptionStandardX963SHA224AESGCM,
        .eciesEncryptionStandardX963SHA256AESGCM,
        .eciesEncryptionStandardX963SHA384AESGCM,
        .eciesEncryptionStandardX963SHA512AESGCM,
        .eciesEncryptionCofactorX963SHA1AESGCM,
        .eciesEncryptionCofactorX963SHA224AESGCM,
        .eciesEncryptionCofactorX963SHA256AESGCM,
        .eciesEncryptionCofactorX963SHA384AESGCM,
        .eciesEncryptionCofactorX963SHA512AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA224AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA384AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA512AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA224AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA384AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
        .ecdhKeyExchangeStandard,
        .ecdhKeyExchangeStandardX963SHA1,
        .ecdhKeyExchangeStandardX963SHA224,
        .ecdhKeyExchangeStandardX963SHA256,
        .ecdhKeyExchangeStandardX963SHA384,
        .ecdhKeyExchangeStandardX963SHA512,
        .ecdhKeyExchangeCofactor,
        .ecdhKeyExchangeCofactorX963SHA1,
        .ecdhKeyExchangeCofactorX963SHA224,
        .ecdhKeyExchangeCofactorX963SHA256,
        .ecdhKeyExchangeCofactorX963SHA384,
        .ecdhKeyExchangeCofactorX963SHA512,
    ]
}

/// `SecKeyAlgorithm.rsaSignatureRaw`.
public let kSecKeyAlgorithmRSASignatureRaw = SecKeyAlgorithm.rsaSignatureRaw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA224`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA224 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA224`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA224 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA512
/// `SecKeyAlgorithm.ecdsaSignatureRFC4754`.
public let kSecKeyAlgorithmECDSASignatureRFC4754 = SecKeyAlgorithm.ecdsaSignatureRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962`.
public let kSecKeyAlgorithmECDSASignatureDigestX962 = SecKeyAlgorithm.ecdsaSignatureDigestX962
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512
/// `SecKeyAlgorithm.rsaEncryptionRaw`.
public let kSecKeyAlgorithmRSAEncryptionRaw = SecKeyAlgorithm.rsaEncryptionRaw
/// `SecKeyAlgorithm.rsaEncryptionPKCS1`.
public let kSecKeyAlgorithmRSAEncryptionPKCS1 = SecKeyAlgorithm.rsaEncryptionPKCS1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1 = SecKeyAlgorithm.rsaEncryptionOAEPSHA1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224 = SecKeyAlgorithm.rsaEncryptionOAEPSHA224
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256 = SecKeyAlgorithm.rsaEncryptionOAEPSHA256
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384 = SecKeyAlgorithm.rsaEncryptionOAEPSHA384
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512 = SecKeyAlgorithm.rsaEncryptionOAEPSHA512
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm
    .eciesEncryptionStandardVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA224AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA384AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA512AESGCM`.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm
    .eciesEncryptionCofactorVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.ecdhKeyExchangeStandard`.
public let kSecKeyAlgorithmECDHKeyExchangeStandard = SecKeyAlgorithm.ecdhKeyExchangeStandard
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactor`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor = SecKeyAlgorithm.ecdhKeyExchangeCofactor
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512
