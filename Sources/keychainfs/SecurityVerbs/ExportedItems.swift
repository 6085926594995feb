import Foundation
import KeychainFSImportExport
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// What `security export -t TYPE` takes from a vault: certificates (DER), private and public keys (in the
/// keychain's forms) and identities (a certificate with its private key), read with SecItemCopyMatching.
struct ExportedItems {
    struct Identity {
        var certificate: Data
        var key: PEMImport.Item
        var label: String?
    }

    var certificates: [Data] = []
    var privateKeys: [PEMImport.Item] = []
    var publicKeys: [(type: Int64, data: Data)] = []
    var identities: [Identity] = []

    var isEmpty: Bool { certificates.isEmpty && privateKeys.isEmpty && publicKeys.isEmpty && identities.isEmpty }

    init(connection: KeychainConnection, type: Export.ItemType) throws(KeychainError) {
        if [.certs, .all].contains(type) {
            certificates = try Self.all(Schema.certificate.code, connection).compactMap {
                $0[QueryKey.valueData]?.dataValue
            }
        }
        if [.privKeys, .allKeys, .all].contains(type) {
            for key in try Self.keys(connection, keyClass: 1) { privateKeys.append(try Self.privateKey(key)) }
        }
        if [.pubKeys, .allKeys, .all].contains(type) {
            publicKeys = try Self.keys(connection, keyClass: 0).compactMap { key in
                key[QueryKey.valueData]?.dataValue.map { (key[Attributes.keyType.code]?.numberValue ?? 0, $0) }
            }
        }
        // `-t all -f pkcs12` has them too
        if [.identities, .all].contains(type) { identities = try Self.identities(connection) }
    }

    private static func all(_ classCode: String, _ connection: KeychainConnection, _ extra: KeychainDictionary = [:])
        throws(KeychainError) -> [[String: KeychainValue]]
    {
        let query: KeychainDictionary = [
            QueryKey.class: .string(classCode), QueryKey.returnAttributes: true, QueryKey.returnData: true,
            QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
        ]
        do {
            return try connection.copyMatching(query.merging(extra) { $1 }.includingSynchronizable)?.arrayValue?
                .compactMap(\.dictionaryValue) ?? []
        } catch let error where error.status == SecStatus.itemNotFound {
            return []
        }
    }

    private static func keys(_ connection: KeychainConnection, keyClass: Int64, label: KeychainValue? = nil)
        throws(KeychainError) -> [[String: KeychainValue]]
    {
        var match: KeychainDictionary = [Attributes.keyClass.code: .number(keyClass)]
        if let label { match[Attributes.applicationLabel.code] = label }
        return try all(Schema.key.code, connection, match)
    }

    /// A private key item as the libcrypto encoders take it; a key that keeps its secret (not extractable, a
    /// Secure Enclave key) cannot be exported (errSecDataNotAvailable, as on macOS).
    private static func privateKey(_ item: [String: KeychainValue]) throws(KeychainError) -> PEMImport.Item {
        guard !Keychain.withholdsSecret(Schema.key, item), let data = item[QueryKey.valueData]?.dataValue else {
            throw KeychainError(SecStatus.dataNotAvailable, "a private key is not extractable")
        }
        return .privateKey(
            type: item[Attributes.keyType.code]?.numberValue ?? 0,
            bits: item[Attributes.keySizeInBits.code]?.numberValue ?? 0, data: data)
    }

    /// Each identity, as the engine joins it (the identity class: a certificate and the private key whose
    /// application label is its public key hash), with that key's bytes.
    private static func identities(_ connection: KeychainConnection) throws(KeychainError) -> [Identity] {
        var identities: [Identity] = []
        for identity in try all(Schema.identity.code, connection) {
            guard let der = identity[QueryKey.valueData]?.dataValue,
                let label = identity[Attributes.applicationLabel.code],
                let key = try keys(connection, keyClass: 1, label: label).first
            else { continue }
            identities.append(
                Identity(
                    certificate: der, key: try privateKey(key), label: identity[Attributes.label.code]?.stringValue))
        }
        return identities
    }
}
