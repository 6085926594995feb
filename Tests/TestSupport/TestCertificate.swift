import Crypto
import Foundation

/// A real self-signed certificate made with `openssl req -x509` from a P-256 key made here.
public struct TestCertificate: Sendable {
    public let der: Data
    public let privateKeyX963: Data
    public let publicKeyX963: Data
    /// The serial number as the filesystem names it (lowercase hex).
    public let serialHex: String

    public init(commonName: String, serial: String = "0A1B2C3D") throws {
        let key = P256.Signing.PrivateKey()
        privateKeyX963 = key.x963Representation
        publicKeyX963 = key.publicKey.x963Representation
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kc-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key.pem"),
            certFile = directory.appendingPathComponent("cert.der")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-key", keyFile.path, "-subj", "/CN=\(commonName)/O=keychainfs tests", "-days", "2",
            "-set_serial", "0x\(serial)", "-outform", "DER", "-out", certFile.path,
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        der = try Data(contentsOf: certFile)
        serialHex = serial.lowercased()
    }

    /// SHA-1 of the public key: the certificate's pkhh and the key's default klbl.
    public var publicKeyHash: Data { Data(Insecure.SHA1.hash(data: publicKeyX963)) }
}

extension Data {
    public init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
