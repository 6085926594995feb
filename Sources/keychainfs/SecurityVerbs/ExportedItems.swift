import Foundation
import ImportExport
import KeychainClient
import KeychainEngine
import KeychainModel

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
        if [.certs, .all].contains(type) { certificates = try Self.all(Schema.certificate.code, connection).compactMap { $0[QueryKey.valueData]?.dataValue } }
        if [.privKeys, .allKeys, .all].contains(type) {
            for key in try Self.keys(connection, keyClass: 1) { privateKeys.append(try Self.privateKey(key)) }
        }
        if [.pubKeys, .allKeys, .all].contains(type) {
            publicKeys = try Self.keys(connection, keyClass: 0).compactMap { key in
                key[QueryKey.valueData]?.dataValue.map { (key[Attributes.keyType.code]?.numberValue ?? 0, $0) }
            }
        }
        if [.identities, .all].contains(type) { identities = try Self.identities(connection) }  // `-t all -f pkcs12` has them too
    }

    private static func all(_ classCode: String, _ connection: KeychainConnection, _ extra: KeychainDictionary = [:]) throws(KeychainError) -> [[String: KeychainValue]] {
        let query: KeychainDictionary = [QueryKey.class: .string(classCode), QueryKey.returnAttributes: true, QueryKey.returnData: true,
                                         QueryKey.matchLimit: .string(QueryKey.matchLimitAll)]
        do {
            return try connection.copyMatching(query.merging(extra) { $1 }.includingSynchronizable)?.arrayValue?.compactMap(\.dictionaryValue) ?? []
        } catch where error.status == SecStatus.itemNotFound {
            return []
        }
    }

    private static func keys(_ connection: KeychainConnection, keyClass: Int64) throws(KeychainError) -> [[String: KeychainValue]] {
        try all(Schema.key.code, connection, [Attributes.keyClass.code: .number(keyClass)])
    }

    /// A private key item as the libcrypto encoders take it; a key that keeps its secret (not extractable, a
    /// Secure Enclave key) cannot be exported (errSecDataNotAvailable, as on macOS).
    private static func privateKey(_ item: [String: KeychainValue]) throws(KeychainError) -> PEMImport.Item {
        guard !Keychain.withholdsSecret(Schema.key, item), let data = item[QueryKey.valueData]?.dataValue else {
            throw KeychainError(SecStatus.dataNotAvailable, "a private key is not extractable")
        }
        return .privateKey(type: item[Attributes.keyType.code]?.numberValue ?? 0, bits: item[Attributes.keySizeInBits.code]?.numberValue ?? 0, data: data)
    }

    /// Each identity: its certificate, and the private key the identity join gives it.
    private static func identities(_ connection: KeychainConnection) throws(KeychainError) -> [Identity] {
        let privateKeys = try keys(connection, keyClass: 1)
        var identities: [Identity] = []
        for certificate in try all(Schema.certificate.code, connection) {
            guard let der = certificate[QueryKey.valueData]?.dataValue, let hash = certificate[Attributes.publicKeyHash.code],
                  let key = privateKeys.first(where: { $0[Attributes.applicationLabel.code] == hash }) else { continue }
            identities.append(Identity(certificate: der, key: try privateKey(key), label: certificate[Attributes.label.code]?.stringValue))
        }
        return identities
    }
}
