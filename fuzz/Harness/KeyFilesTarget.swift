import Foundation
import KeychainFSImportExport
import KeychainFSEngine
import KeychainFSModel

/// The files `security import` and `SecPKCS12Import` take: PKCS#12 (through libcrypto), PEM with
/// certificates and (encrypted) private keys, DER certificates. Seeds use the passphrase "fuzz". Each either
/// reads or fails with an OSStatus (a file asking more key-derivation work than the cap, at once); what reads
/// as a PKCS#12 identity must be written back and read again.
enum KeyFilesTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        _ = try? KeyDerivationLimit.check(der: data)
        _ = try? PrivateKeyPEM.items(in: data, passphrase: "fuzz")
        _ = try? PEMImport.items(in: data)
        guard let contents = try? PKCS12File.read(data, passphrase: "fuzz") else { return }
        do {
            let identity = PKCS12File.Identity(
                privateKey: contents.privateKey, certificate: contents.certificate, friendlyName: contents.friendlyName)
            let again = try PKCS12File.read(
                try PKCS12File.make([identity], chain: contents.chain, passphrase: "again"), passphrase: "again")
            guard again.privateKey == contents.privateKey, again.certificate == contents.certificate,
                again.chain == contents.chain
            else {
                throw PropertyViolation("a PKCS#12 identity written back reads differently")
            }
        } catch let violation as PropertyViolation {
            throw violation
        } catch {
            // A file libcrypto reads but whose key and certificate disagree cannot be written back: fine.
            guard (error as? KeychainError)?.status == SecStatus.param else {
                throw PropertyViolation("writing back failed: \(error)")
            }
        }
    }
}
