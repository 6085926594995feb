import Foundation
import X509

/// The system's trusted roots: Debian's `ca-certificates` bundle, read once on first use.
enum SystemRoots {
    static let bundlePath = "/etc/ssl/certs/ca-certificates.crt"
    /// A bundle larger than this is refused rather than read (Debian's is about 200 KiB).
    static let maximumBundleSize = 16 << 20

    /// The bundle's certificates with their DER; none when the file is missing, unreadable or too large.
    static let shared: TrustRoots = TrustRoots(pem: readBundle(atPath: bundlePath) ?? "")

    /// The file's text, or nil when it cannot be read or is over `maximumBundleSize`.
    static func readBundle(atPath path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        // Read one byte past the limit: a file that grows while it is read is bounded all the same.
        guard let data = try? file.read(upToCount: maximumBundleSize + 1), data.count <= maximumBundleSize else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Certificates a trust evaluation may anchor to, with each one's DER to hand back as a SecCertificate.
struct TrustRoots: Sendable {
    let certificates: [Certificate]
    let der: [Certificate: Data]

    /// Every `CERTIFICATE` block of a PEM bundle that parses; the others are skipped.
    init(pem: String) {
        var certificates: [Certificate] = []
        var der: [Certificate: Data] = [:]
        for block in pem.components(separatedBy: "-----END CERTIFICATE-----") {
            guard let begin = block.range(of: "-----BEGIN CERTIFICATE-----") else { continue }
            let body = block[begin.upperBound...]
            guard let bytes = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters),
                let certificate = try? Certificate(derEncoded: Array(bytes)), der[certificate] == nil
            else { continue }
            certificates.append(certificate)
            der[certificate] = bytes
        }
        self.certificates = certificates
        self.der = der
    }
}
