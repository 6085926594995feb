import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// `SecItemAdd([kSecValueRef: identity])`: as on iOS, the identity's certificate and private key are
/// added, each with the attributes of the call its class has, in one engine transaction
/// (``KeychainConnection/addIdentity(certificate:key:)``): a certificate already there is
/// errSecDuplicateItem, a key already there is kept, and nothing is ever half-added.
enum IdentityAdd {
    /// Adds both halves; the result, if the call asked for one, describes the identity.
    static func add(_ identity: SecIdentity, _ attributes: NSDictionary, _ connection: KeychainConnection)
        throws(KeychainError) -> (KeychainValue?, KeychainDictionary)
    {
        let rest = attributes.mutableCopy() as! NSMutableDictionary
        for key in rest.allKeys
        where (key as? String) == QueryKey.valueRef || (key as? NSString).map(String.init) == QueryKey.valueRef {
            rest.removeObject(forKey: key)
        }
        var given = try ValueBridge.dictionary(rest, forAdd: true)
        if let cls = given.removeValue(forKey: QueryKey.class), cls != KeychainValue.string(Schema.identity.code) {
            throw KeychainError(SecStatus.param, "kSecValueRef does not belong to the kSecClass given")
        }
        let returns = given.filter { QueryKey.returnKeys.contains($0.key) }
        given = given.filter { !QueryKey.returnKeys.contains($0.key) }

        var certificate = half(given, Schema.certificate)
        try RefObjectBridge.expand(&certificate, identity.certificate, forAdd: true)
        var key = half(given, Schema.key)
        try RefObjectBridge.expand(&key, identity.privateKey, forAdd: true)
        guard let issuer = identity.certificate.attributes[Attributes.issuer.code],
            let serial = identity.certificate.attributes[Attributes.serialNumber.code]
        else {
            throw KeychainError(SecStatus.param, "the identity's certificate has no issuer and serial number")
        }

        try connection.addIdentity(certificate: certificate, key: key)
        guard !returns.isEmpty else { return (nil, returns) }
        var query = returns
        query[QueryKey.class] = KeychainValue.string(Schema.identity.code)
        query[Attributes.issuer.code] = issuer
        query[Attributes.serialNumber.code] = serial
        if let group = given[Attributes.accessGroup.code] { query[Attributes.accessGroup.code] = group }
        return (try connection.copyMatching(query), query)
    }

    /// The attributes `schema` has, and every key that is not an attribute (kSecUse…, kSecAttrAccessControl's
    /// protection), for one half of the identity.
    private static func half(_ given: KeychainDictionary, _ schema: ItemClassSchema) -> KeychainDictionary {
        given.filter { $0.key.utf8.count != 4 || schema.attribute($0.key) != nil }
    }
}
