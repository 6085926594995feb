import Foundation

/// Files made by the openssl CLI (the other implementation the import and export code is checked against):
/// a CA, a leaf certificate it signed for an EC or RSA key, the leaf's PKCS#12 files and encrypted key.
/// Everything lives in a temporary directory removed with the fixture.
public final class PKCS12Fixture: Sendable {
    public let directory: String
    public let commonName: String
    public var leafKey: String { directory + "/leaf.key" }
    public var leafCertificate: String { directory + "/leaf.pem" }
    public var caCertificate: String { directory + "/ca.pem" }

    /// `keyType`: "ec" (P-256) or "rsa" (2048 bits).
    public init(keyType: String, commonName: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-p12-\(UUID().uuidString)").path
        self.commonName = commonName
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            directory + "/ca.key",
            "-out", caCertificate, "-subj", "/CN=keychainfs test CA", "-days", "2",
        ])
        let newKey =
            keyType == "rsa" ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
        try openssl(
            ["req"] + newKey + [
                "-nodes", "-keyout", leafKey, "-out", directory + "/leaf.csr", "-subj",
                "/CN=\(commonName)/O=keychainfs tests",
            ])
        try openssl([
            "x509", "-req", "-in", directory + "/leaf.csr", "-CA", caCertificate, "-CAkey", directory + "/ca.key",
            "-set_serial", "0x\(UUID().uuidString.prefix(8))", "-days", "2", "-out", leafCertificate,
        ])
        try openssl(["x509", "-in", leafCertificate, "-outform", "DER", "-out", directory + "/leaf.der"])
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// `openssl pkcs12 -export` of the leaf (with the CA as its chain when `chain`), OpenSSL 3's default
    /// encryption or, with `legacy`, RC2-40/3DES and a SHA-1 MAC. The file's path.
    public func pkcs12(legacy: Bool, passphrase: String, friendlyName: String, chain: Bool = true) throws -> String {
        let path = directory + "/\(legacy ? "legacy" : "modern")-\(UUID().uuidString.prefix(6)).p12"
        try openssl(
            [
                "pkcs12", "-export", "-inkey", leafKey, "-in", leafCertificate, "-name", friendlyName, "-passout",
                "pass:\(passphrase)",
                "-out", path,
            ] + (chain ? ["-certfile", caCertificate] : []) + (legacy ? ["-legacy"] : []))
        return path
    }

    /// The leaf key as encrypted PKCS#8 PEM (`openssl pkey -aes256`). The file's path.
    public func encryptedKey(passphrase: String) throws -> String {
        let path = directory + "/encrypted.pem"
        try openssl(["pkey", "-in", leafKey, "-aes256", "-passout", "pass:\(passphrase)", "-out", path])
        return path
    }

    /// `openssl ARGS`'s standard output; throws when it fails.
    @discardableResult
    public func openssl(_ arguments: [String], stdin: String? = nil) throws -> String {
        let result = Command.run("/usr/bin/openssl", arguments, stdin: stdin, environment: [:])
        guard result.succeeded else {
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments): \(result.stderr)"])
        }
        return result.stdout
    }

    /// The localKeyID openssl wrote into a PKCS#12 file (hex of the bag attribute), for comparison.
    public func localKeyID(of p12: String, passphrase: String) throws -> Data? {
        let info = try openssl(["pkcs12", "-in", p12, "-passin", "pass:\(passphrase)", "-nokeys", "-clcerts"])
        guard let line = info.split(separator: "\n").first(where: { $0.contains("localKeyID:") }) else { return nil }
        let hex = line.split(separator: ":", maxSplits: 1)[1].filter { !$0.isWhitespace }
        return Data(hex: String(hex))
    }
}
