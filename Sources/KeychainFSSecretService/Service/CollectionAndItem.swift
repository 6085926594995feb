import Foundation
import KeychainFSEngine
import KeychainFSModel

/// org.freedesktop.Secret.Collection and org.freedesktop.Secret.Item.
extension ServiceObjects {
    static let labelProperty = itemInterface + ".Label"
    static let attributesProperty = itemInterface + ".Attributes"

    func collectionMethod(_ call: BusCall, _ caller: Caller) throws(BusError) -> [BusValue] {
        switch call.member {
        case "SearchItems":
            let args = try CallArguments(call, signature: "a{ss}")
            let wanted = try ItemMapping.attributes(args[0])
            // sealed while locked (Service.SearchItems)
            guard keychain.isAvailable(.whenUnlocked) else { return [.paths([])] }
            return [.paths(try face.search(wanted, caller).map { ObjectPath.itemPath($0.reference) })]
        case "CreateItem":
            let args = try CallArguments(call, signature: "a{sv}(oayays)b")
            var label = "", attributes: [String: String] = [:]
            for entry in args[0].entries ?? [] {
                switch entry.key.stringValue {
                case Self.labelProperty?:
                    guard let text = entry.value.stringValue else {
                        throw .invalidArgs("\(Self.labelProperty) is a string")
                    }
                    label = text
                case Self.attributesProperty?:
                    guard case .variant(let map) = entry.value else {
                        throw .invalidArgs("\(Self.attributesProperty) is a{ss}")
                    }
                    attributes = try ItemMapping.attributes(map)
                default: continue  // other properties (a type, a schema) are not kept, as gnome-keyring ignores them
                }
            }
            let secret = try CallArguments.secret(args[1])
            let plaintext = try sessions.crypto(secret.session, caller: call.sender).open(
                secret.value, parameters: secret.parameters)
            let (reference, _) = try face.create(
                attributes: attributes, label: label, secret: plaintext, contentType: secret.contentType,
                replace: args[2].boolValue ?? false, caller)
            return [.objectPath(ObjectPath.itemPath(reference)), .objectPath(ObjectPath.none)]
        case "Delete":
            _ = try CallArguments(call, signature: "")
            throw BusError(
                "org.freedesktop.DBus.Error.NotSupported",
                "the collection is the vault: it is not deleted through the Secret Service")
        default:
            throw .unknownMethod("no method \(call.member) of \(Self.collectionInterface)")
        }
    }

    func itemMethod(_ call: BusCall, _ reference: Data, _ caller: Caller) throws(BusError) -> [BusValue] {
        switch call.member {
        case "GetSecret":
            let args = try CallArguments(call, signature: "o")
            let crypto = try sessions.crypto(args.string(0), caller: call.sender)
            guard let (item, secret) = try face.itemAndSecret(reference, caller) else {
                throw .noSuchObject("no such item: \(ObjectPath.itemPath(reference))")
            }
            let sealed = try crypto.seal(secret)
            return [
                CallArguments.secret(
                    session: args.string(0), parameters: sealed.parameters, value: sealed.value,
                    contentType: item.contentType)
            ]
        case "SetSecret":
            let item = try existingItem(reference, caller)
            let args = try CallArguments(call, signature: "(oayays)")
            let secret = try CallArguments.secret(args[0])
            let plaintext = try sessions.crypto(secret.session, caller: call.sender).open(
                secret.value, parameters: secret.parameters)
            try face.update(
                reference,
                [
                    QueryKey.valueData: .data(plaintext),
                    Attributes.generic.code: .data(
                        ItemMapping.record(item.attributes, contentType: secret.contentType)),
                ], caller)
            return []
        case "Delete":
            _ = try CallArguments(call, signature: "")
            try face.delete(reference, caller)
            return [.objectPath(ObjectPath.none)]
        default:
            throw .unknownMethod("no method \(call.member) of \(Self.itemInterface)")
        }
    }

    func existingItem(_ reference: Data, _ caller: Caller) throws(BusError) -> ServiceItem {
        guard let item = try face.item(reference, caller) else {
            throw .noSuchObject("no such item: \(ObjectPath.itemPath(reference))")
        }
        return item
    }

    /// Changes an item's label or attributes (Properties.Set). New attributes may rename the item.
    func setItemProperty(_ name: String, _ value: BusValue, _ item: ServiceItem, _ caller: Caller) throws(BusError) {
        switch name {
        case "Label":
            guard let label = value.stringValue else { throw .invalidArgs("Label is a string") }
            try face.update(item.reference, [Attributes.label.code: .string(label)], caller)
        case "Attributes":
            let attributes = try ItemMapping.attributes(value)
            let (service, account) = ItemMapping.name(of: attributes)
            try face.update(
                item.reference,
                [
                    Attributes.service.code: .string(service), Attributes.account.code: .string(account),
                    Attributes.generic.code: .data(ItemMapping.record(attributes, contentType: item.contentType)),
                ], caller)
        default:
            throw BusError("org.freedesktop.DBus.Error.PropertyReadOnly", "\(name) cannot be set")
        }
    }
}
