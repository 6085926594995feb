import Foundation

/// The TSS2 PRIVATE KEY file of a TPM object (the format of tpm2-openssl, tpm2-tss-engine and the Linux
/// kernel's trusted keys): DER of SEQUENCE { type OID loadableKey, [0] emptyAuth TRUE, parent INTEGER
/// (the owner hierarchy: its primary key is made from the same SRK template as ours), pubkey OCTET STRING,
/// privkey OCTET STRING }, in PEM.
enum TSS2PrivateKey {
    /// 2.23.133.10.1.3, id-loadablekey.
    static let loadableKey: [UInt8] = [0x67, 0x81, 0x05, 0x0A, 0x01, 0x03]
    static let ownerHierarchy: [UInt8] = [0x40, 0x00, 0x00, 0x01]

    /// The PEM of the object `blob` (TPM2B_PUBLIC ‖ TPM2B_PRIVATE, as the TPM calls write it).
    static func pem(of blob: Data) -> String? {
        guard blob.count > 2 else { return nil }
        let publicSize = Int(blob[blob.startIndex]) << 8 | Int(blob[blob.startIndex + 1])
        guard blob.count > 2 + publicSize else { return nil }
        let pub = [UInt8](blob.prefix(2 + publicSize))
        let priv = [UInt8](blob.dropFirst(2 + publicSize))
        let body =
            der(0x06, loadableKey) + der(0xA0, der(0x01, [0xFF])) + der(0x02, ownerHierarchy) + der(0x04, pub)
            + der(0x04, priv)
        let base64 = Data(der(0x30, body)).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN TSS2 PRIVATE KEY-----\n\(base64)\n-----END TSS2 PRIVATE KEY-----\n"
    }

    private static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        var length: [UInt8]
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            length = withUnsafeBytes(of: UInt32(count).bigEndian, Array.init).drop { $0 == 0 }.map { $0 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
}
