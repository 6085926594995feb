import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The Secret Service's items through the engine's SecItem operations, as the control socket calls them:
/// the lock, access rules, --strict and the input bounds are the engine's, never decided here.
struct VaultFace: Sendable {
    let keychain: Keychain
    private let records: ItemMapping.RecordCache

    init(keychain: Keychain) {
        self.keychain = keychain
        records = ItemMapping.RecordCache(keychain)
    }

    /// Every generic password the caller may see (those `naming` names, when given), as Secret Service
    /// items: attributes only, no secret decrypted.
    func items(_ caller: Caller, naming: (service: String, account: String)? = nil) throws(BusError) -> [ServiceItem] {
        var query: KeychainDictionary = [
            QueryKey.class: .string(Schema.genericPassword.code), QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
            QueryKey.returnAttributes: true, QueryKey.returnPersistentRef: true,
            Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
        ]
        if let naming {
            query[Attributes.service.code] = .string(naming.service)
            query[Attributes.account.code] = .string(naming.account)
        }
        do {
            guard let found = try keychain.copyMatching(query, caller: caller)?.arrayValue else { return [] }
            return found.compactMap { $0.dictionaryValue.flatMap { ItemMapping.item($0, record: records.record) } }
        } catch let error where error.status == SecStatus.itemNotFound {
            return []
        } catch {
            throw Self.busError(error)
        }
    }

    /// The item with `reference`, nil when it is gone (one lookup by persistent reference, not a listing).
    func item(_ reference: Data, _ caller: Caller) throws(BusError) -> ServiceItem? {
        let query: KeychainDictionary = [
            QueryKey.class: .string(Schema.genericPassword.code), QueryKey.valuePersistentRef: .data(reference),
            QueryKey.returnAttributes: true, QueryKey.returnPersistentRef: true,
        ]
        do {
            guard var found = try keychain.copyMatching(query, caller: caller)?.dictionaryValue else { return nil }
            found[QueryKey.valuePersistentRef] = found[QueryKey.valuePersistentRef] ?? .data(reference)
            return ItemMapping.item(found, record: records.record)
        } catch let error where error.status == SecStatus.itemNotFound || error.status == SecStatus.param {
            return nil  // gone, or a reference that names no item of ours (errSecParam for a malformed one)
        } catch {
            throw Self.busError(error)
        }
    }

    /// The items whose attributes include every one of `attributes`. With both `service` and `username`
    /// asked for, only the item they name can match (``ItemMapping/name(of:)``): the engine looks it up by
    /// its service and account instead of listing the vault (but for the pair the collection's label
    /// holds, which names its items by digest).
    func search(_ attributes: [String: String], _ caller: Caller) throws(BusError) -> [ServiceItem] {
        let naming = attributes["service"].flatMap { service in attributes["username"].map { (service, $0) } }
            .flatMap { CollectionLabel.holds(service: $0.0, account: $0.1) ? nil : $0 }
        return try items(caller, naming: naming).filter { item in
            attributes.allSatisfy { item.attributes[$0.key] == $0.value }
        }
    }

    /// The item with `reference` and its secret, in one engine call: IsLocked while the device keeps the
    /// secret, nil when the item is gone.
    func itemAndSecret(_ reference: Data, _ caller: Caller) throws(BusError) -> (item: ServiceItem, secret: Data)? {
        let query: KeychainDictionary = [
            QueryKey.class: .string(Schema.genericPassword.code), QueryKey.valuePersistentRef: .data(reference),
            QueryKey.returnAttributes: true,
            QueryKey.returnData: true, QueryKey.returnPersistentRef: true,
            QueryKey.useAuthenticationUI: .string(QueryKey.useAuthenticationUISkip),
        ]
        do {
            guard var found = try keychain.copyMatching(query, caller: caller)?.dictionaryValue,
                let secret = found[QueryKey.valueData]?.dataValue
            else { return nil }
            found[QueryKey.valuePersistentRef] = found[QueryKey.valuePersistentRef] ?? .data(reference)
            return ItemMapping.item(found, record: records.record).map { ($0, secret) }
        } catch let error where error.status == SecStatus.itemNotFound || error.status == SecStatus.param {
            return nil
        } catch {
            throw Self.busError(error)
        }
    }

    /// Creates an item, or with `replace` updates the one its attributes name. Returns its reference.
    func create(
        attributes: [String: String], label: String, secret: Data, contentType: String, replace: Bool,
        _ caller: Caller
    ) throws(BusError) -> (reference: Data, created: Bool) {
        let (service, account) = ItemMapping.name(of: attributes)
        let record = ItemMapping.record(attributes, contentType: contentType)
        let naming: KeychainDictionary = [
            QueryKey.class: .string(Schema.genericPassword.code), Attributes.service.code: .string(service),
            Attributes.account.code: .string(account),
        ]
        do throws(KeychainError) {
            var add = naming
            add[Attributes.label.code] = .string(label)
            add[Attributes.generic.code] = .data(record)
            add[QueryKey.valueData] = .data(secret)
            add[QueryKey.returnPersistentRef] = true
            guard let reference = try keychain.add(add, caller: caller)?.dataValue else {
                throw KeychainError(SecStatus.internalComponent, "no reference")
            }
            return (reference, true)
        } catch let error where error.status == SecStatus.duplicateItem {
            guard replace else {
                throw BusError.failed(
                    "an item with service '\(service)' and account '\(account)' exists (the same attributes name one "
                        + "keychain item); create it with replace = true to change it")
            }
        } catch {
            throw Self.busError(error)
        }
        do throws(KeychainError) {
            try keychain.update(
                naming,
                [
                    Attributes.label.code: .string(label), Attributes.generic.code: .data(record),
                    QueryKey.valueData: .data(secret),
                ], caller: caller)
            var lookup = naming
            lookup[QueryKey.returnPersistentRef] = true
            guard let reference = try keychain.copyMatching(lookup, caller: caller)?.dataValue else {
                throw KeychainError(SecStatus.itemNotFound, "gone")
            }
            return (reference, false)
        } catch {
            throw Self.busError(error)
        }
    }

    /// Changes what `changes` names (kSecAttr… codes and kSecValueData) of the item with `reference`.
    func update(_ reference: Data, _ changes: KeychainDictionary, _ caller: Caller) throws(BusError) {
        do {
            try keychain.update(
                [QueryKey.class: .string(Schema.genericPassword.code), QueryKey.valuePersistentRef: .data(reference)],
                changes, caller: caller)
        } catch {
            throw Self.busError(error)
        }
    }

    func delete(_ reference: Data, _ caller: Caller) throws(BusError) {
        do {
            try keychain.delete(
                [QueryKey.class: .string(Schema.genericPassword.code), QueryKey.valuePersistentRef: .data(reference)],
                caller: caller)
        } catch let error where error.status == SecStatus.param {
            throw .noSuchObject("no such item (\(error.message))")  // a path whose reference names no item
        } catch {
            throw Self.busError(error)
        }
    }

    /// The engine's refusal as the Secret Service's error, its message kept.
    static func busError(_ error: KeychainError) -> BusError {
        switch error.status {
        case SecStatus.interactionNotAllowed: .isLocked("the keychain is locked: \(error.message)")
        case SecStatus.itemNotFound: .noSuchObject("no such item: \(error.message)")
        case SecStatus.missingEntitlement, SecStatus.authFailed, SecStatus.userCanceled: .accessDenied(error.message)
        case SecStatus.param, SecStatus.dataTooLarge: .invalidArgs(error.message)
        default: .failed(error.description)
        }
    }
}
