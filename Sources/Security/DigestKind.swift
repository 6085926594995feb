import KeychainFSCOpenSSL
import Foundation

/// The hash functions of Apple's SecKey algorithms, computed by libcrypto (SHA-224 included).
enum DigestKind: String, Equatable, CaseIterable {
    case sha1 = "SHA1", sha224 = "SHA224", sha256 = "SHA256", sha384 = "SHA384", sha512 = "SHA512"

    /// The digest's size in bytes.
    var size: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// libcrypto's description of the function.
    var md: OpaquePointer {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }

    /// The digest of `data`.
    func hash(_ data: Data) -> Data {
        var output = Data(count: size)
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                EVP_Digest(
                    input.baseAddress, input.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, md,
                    nil)
            }
        }
        precondition(ok == 1 && Int(length) == size, "libcrypto failed to hash")
        return output
    }

    /// ANSI X9.63 KDF (SEC 1 §3.6.1): `size` bytes of H(Z ‖ counter ‖ sharedInfo) for counter = 1, 2, …
    func x963(_ secret: Data, sharedInfo: Data, size: Int) -> Data {
        var output = Data()
        var counter: UInt32 = 1
        while output.count < size {
            var block = secret
            withUnsafeBytes(of: counter.bigEndian) { block.append(contentsOf: $0) }
            block.append(sharedInfo)
            output.append(hash(block))
            counter += 1
        }
        return output.prefix(size)
    }
}
