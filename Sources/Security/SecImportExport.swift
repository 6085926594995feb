import Foundation
import KeychainFSImportExport
import KeychainFSEngine
import KeychainFSModel

// SecImportExport.h: PKCS#12 as iOS reads it. Values from the engine's one table (SecConstantTable).
public nonisolated(unsafe) let kSecImportExportPassphrase: CFString = secConstant("kSecImportExportPassphrase")
public nonisolated(unsafe) let kSecImportItemLabel: CFString = secConstant("kSecImportItemLabel")
public nonisolated(unsafe) let kSecImportItemKeyID: CFString = secConstant("kSecImportItemKeyID")
/// Declared for source compatibility; never in a result (there is no SecTrust here).
public nonisolated(unsafe) let kSecImportItemTrust: CFString = secConstant("kSecImportItemTrust")
public nonisolated(unsafe) let kSecImportItemCertChain: CFString = secConstant("kSecImportItemCertChain")
public nonisolated(unsafe) let kSecImportItemIdentity: CFString = secConstant("kSecImportItemIdentity")

/// Apple's `SecPKCS12Import`, as on iOS: the identity of a PKCS#12 file (`kSecImportExportPassphrase` in
/// `options`), returned in `items` as one dictionary with `kSecImportItemIdentity`, `kSecImportItemCertChain`
/// (the certificate first), `kSecImportItemKeyID` and `kSecImportItemLabel` when the file has them. Nothing
/// is added to the keychain: `SecItemAdd([kSecValueRef: identity])` does that. No `kSecImportItemTrust`
/// (no SecTrust). errSecAuthFailed for a wrong passphrase, errSecDecode for bytes that are not PKCS#12.
@discardableResult
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>)
    -> OSStatus
{
    let passphrase = (options as NSDictionary).object(forKey: kSecImportExportPassphrase as String).flatMap {
        ($0 as? String) ?? ($0 as? NSString).map(String.init)
    }
    do throws(KeychainError) {
        let contents = try PKCS12File.read(pkcs12_data as Data, passphrase: passphrase ?? "")
        guard case .privateKey(let type, let bits, let keyBytes) = contents.privateKey,
            let certificate = SecCertificateCreateWithData(nil, contents.certificate as CFData),
            let key = SecKeyCreateWithData(
                keyBytes as CFData,
                [
                    kSecAttrKeyType: NSString(string: String(type)), kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                    kSecAttrKeySizeInBits: NSNumber(value: bits),
                ] as CFDictionary, nil)
        else {
            throw KeychainError(SecStatus.unknownFormat, "the file's identity could not be read")
        }
        let chain = [certificate] + contents.chain.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        let entry = NSMutableDictionary()
        entry[kSecImportItemIdentity as String] = SecIdentity(
            certificate: certificate, privateKey: key, persistentRef: nil)
        entry[kSecImportItemCertChain as String] = NSArray(array: chain)
        if let keyID = contents.localKeyID { entry[kSecImportItemKeyID as String] = NSData(data: keyID) }
        if let label = contents.friendlyName { entry[kSecImportItemLabel as String] = NSString(string: label) }
        items.pointee = NSArray(array: [entry])
        return errSecSuccess
    } catch {
        return error.status
    }
}
