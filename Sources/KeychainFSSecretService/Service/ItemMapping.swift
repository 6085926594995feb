import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A Secret Service item as the vault keeps it: a generic password (docs/secret-service.md, "One vault,
/// two faces"). Its attributes and content type live, sealed like every attribute, in the item's
/// kSecAttrGeneric; its label, creation and modification dates are the keychain's own.
struct ServiceItem: Sendable, Equatable {
    var reference: Data
    var attributes: [String: String]
    var label: String
    var contentType: String
    var created: Date
    var modified: Date
    var accessibility: Accessibility
}

enum ItemMapping {
    /// What marks a kSecAttrGeneric as this service's record (other programs may keep their own bytes there).
    static let marker = Data("keychainfs-secret-service/1\n".utf8)
    static let defaultContentType = "text/plain"
    /// The service of an item with neither a `service` attribute nor a schema.
    static let genericSchema = "org.freedesktop.Secret.Generic"

    /// Bounds on what a client may store as attributes (a hostile attribute map is refused, whole).
    static let maxAttributes = 64
    static let maxNameBytes = 256
    static let maxValueBytes = 4096

    /// The keychain name of an item with `attributes`: with both `service` and `username` (Python's keyring
    /// and most wrappers) they are kSecAttrService and kSecAttrAccount; otherwise the service is
    /// `xdg:schema` (or org.freedesktop.Secret.Generic) and the account a digest of every attribute, so
    /// the same attribute set always names the same item and different sets never collide.
    /// The one pair a client's `service` and `username` cannot name: the collection's label
    /// (``CollectionLabel``) is kept there, so such a set is named by its digest like any other.
    static func name(of attributes: [String: String]) -> (service: String, account: String) {
        if let service = attributes["service"], let username = attributes["username"],
            !CollectionLabel.holds(service: service, account: username)
        {
            return (service, username)
        }
        let digest = SHA256.hash(data: canonical(attributes)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return (attributes["xdg:schema"] ?? genericSchema, "ss-" + digest)
    }

    /// Attributes, sorted, each name and value length-prefixed: one byte string per attribute set.
    static func canonical(_ attributes: [String: String]) -> Data {
        var bytes = Data()
        for key in attributes.keys.sorted() {
            for text in [key, attributes[key]!] {
                let utf8 = Data(text.utf8)
                withUnsafeBytes(of: UInt32(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
                bytes.append(utf8)
            }
        }
        return bytes
    }

    /// The kSecAttrGeneric record of `attributes` and `contentType`.
    static func record(_ attributes: [String: String], contentType: String) -> Data {
        let body: [String: Any] = ["attributes": attributes, "contentType": contentType]
        let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return marker + json
    }

    /// An item from the attributes the engine returns for a generic password (kSecReturnAttributes with
    /// kSecReturnPersistentRef). An item made through the mount, the CLI or the Security module has no
    /// record: it shows `service` and `username` (its service and account) and its label.
    /// `record` reads the item's record (``record(_:)``, or a cache of it).
    static func item(_ found: KeychainDictionary, record: (Data) -> Record? = record) -> ServiceItem? {
        guard let reference = found[QueryKey.valuePersistentRef]?.dataValue else { return nil }
        let service = text(found[Attributes.service.code]), account = text(found[Attributes.account.code])
        if CollectionLabel.holds(service: service, account: account) { return nil }  // not an item
        var attributes = ["service": service, "username": account]
        var contentType = defaultContentType
        if let generic = found[Attributes.generic.code]?.dataValue, let stored = record(generic) {
            attributes = stored.attributes
            contentType = stored.contentType
        }
        let created = date(found[Attributes.creationDate.code]) ?? Date(timeIntervalSince1970: 0)
        return ServiceItem(
            reference: reference, attributes: attributes, label: text(found[Attributes.label.code]),
            contentType: contentType,
            created: created, modified: date(found[Attributes.modificationDate.code]) ?? created,
            accessibility: found[Attributes.accessible.code]?.stringValue.flatMap(Accessibility.init(rawValue:))
                ?? .whenUnlocked)
    }

    /// What an item made through the Secret Service keeps in its generic attribute.
    struct Record: Sendable {
        let attributes: [String: String]
        let contentType: String
    }

    /// The record in an item's generic attribute, nil when it holds none.
    static func record(_ generic: Data) -> Record? {
        guard generic.starts(with: marker),
            let body = try? JSONSerialization.jsonObject(with: generic.dropFirst(marker.count)) as? [String: Any],
            let stored = body["attributes"] as? [String: String]
        else { return nil }
        return Record(attributes: stored, contentType: body["contentType"] as? String ?? defaultContentType)
    }

    /// Records already read, by their bytes: reading one (JSON) was a tenth of the service's time in a
    /// GetSecrets. Emptied at every change of the keychain, a lock included, so no record (an item's
    /// attributes) outlives a lock.
    final class RecordCache: Sendable {
        private let cache = GenerationalCache<Data, Record>(capacity: 1024)
        private let keychain: Keychain

        init(_ keychain: Keychain) {
            self.keychain = keychain
            keychain.addChangeObserver { [cache] _ in cache.removeAll(olderThan: keychain.generation) }
        }

        func record(_ generic: Data) -> Record? {
            let generation = keychain.generation
            if let known = cache.value(generic, generation: generation) { return known }
            guard let read = ItemMapping.record(generic) else { return nil }
            cache.store(read, for: generic, generation: generation)
            return read
        }
    }

    /// Refuses an attribute map over the bounds, with the reason.
    static func check(_ attributes: [String: String]) throws(BusError) {
        guard attributes.count <= maxAttributes else {
            throw .invalidArgs("at most \(maxAttributes) attributes, not \(attributes.count)")
        }
        for (name, value) in attributes {
            guard !name.isEmpty, name.utf8.count <= maxNameBytes else {
                throw .invalidArgs("an attribute name is 1 to \(maxNameBytes) bytes")
            }
            guard value.utf8.count <= maxValueBytes else {
                throw .invalidArgs("attribute '\(name)': a value is at most \(maxValueBytes) bytes")
            }
        }
    }

    /// An `a{ss}` argument as a Swift dictionary (a repeated name: the last one wins, as in gnome-keyring).
    static func attributes(_ value: BusValue) throws(BusError) -> [String: String] {
        guard let entries = value.entries else { throw .invalidArgs("attributes must be a{ss}") }
        guard entries.count <= maxAttributes * 4 else {
            throw .invalidArgs("at most \(maxAttributes) attributes, not \(entries.count)")
        }
        var map: [String: String] = [:]
        for entry in entries {
            guard case .string(let name) = entry.key, case .string(let text) = entry.value else {
                throw .invalidArgs("attributes must be a{ss}")
            }
            map[name] = text
        }
        try check(map)
        return map
    }

    private static func text(_ value: KeychainValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .data(let d)?: String(decoding: d, as: UTF8.self)
        default: ""
        }
    }

    private static func date(_ value: KeychainValue?) -> Date? {
        if case .date(let d)? = value { return d }
        return nil
    }
}
