import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// The default collection's `Label` (docs/secret-service.md, "The collection's label"): set by
/// Properties.Set, kept in the vault as a generic password of its own (service ``service``, account
/// ``account``, the label its kSecAttrLabel, sealed like every attribute, an empty value), read and
/// written through the engine under the caller's rules. It is not an item of the collection
/// (``ItemMapping/item(_:record:)`` skips it). While the device is locked its attributes are sealed, so
/// the last label read since the daemon started is shown (else ``defaultLabel``).
final class CollectionLabel: Sendable {
    static let service = "org.freedesktop.Secret.Collection"
    static let account = "login"
    static let defaultLabel = "Login"

    /// Whether `service` and `account` name the label's own entry (never an item of the collection).
    static func holds(service: String, account: String) -> Bool { (service, account) == (Self.service, Self.account) }

    private let keychain: Keychain
    private let lastRead = Mutex<String?>(nil)

    init(keychain: Keychain) { self.keychain = keychain }

    private static let naming: KeychainDictionary = [
        QueryKey.class: .string(Schema.genericPassword.code), Attributes.service.code: .string(service),
        Attributes.account.code: .string(account),
    ]

    /// The label `caller` sees: the one kept in the vault, ``defaultLabel`` while none is.
    func current(_ caller: Caller) -> String {
        guard keychain.isAvailable(.whenUnlocked) else { return lastRead.withLock { $0 } ?? Self.defaultLabel }
        var query = Self.naming
        query[QueryKey.returnAttributes] = true
        let label: String
        do {
            label =
                try keychain.copyMatching(query, caller: caller)?.dictionaryValue?[Attributes.label.code]?
                .stringValue ?? Self.defaultLabel
        } catch {
            return lastRead.withLock { $0 } ?? Self.defaultLabel  // locked meanwhile, or refused: nothing read
        }
        lastRead.withLock { $0 = label }
        return label
    }

    /// Keeps `label` (the same label again is a success that changes nothing but the item's date).
    func set(_ label: String, _ caller: Caller) throws(BusError) {
        // The engine bounds only secrets; a display name is held to an attribute value's bound.
        guard label.utf8.count <= ItemMapping.maxValueBytes else {
            throw .invalidArgs("a label is at most \(ItemMapping.maxValueBytes) bytes")
        }
        do throws(KeychainError) {
            var add = Self.naming
            add[Attributes.label.code] = .string(label)
            add[QueryKey.valueData] = .data(Data())
            _ = try keychain.add(add, caller: caller)
        } catch let error where error.status == SecStatus.duplicateItem {
            do {
                try keychain.update(Self.naming, [Attributes.label.code: .string(label)], caller: caller)
            } catch {
                throw VaultFace.busError(error)
            }
        } catch {
            throw VaultFace.busError(error)
        }
        lastRead.withLock { $0 = label }
    }
}
