import Foundation
import KeychainFSEngine
import KeychainFSModel

/// org.freedesktop.DBus.Properties (Get, GetAll, Set) of every object, answered here since sd-bus's
/// vtables, which would do it, do not import into Swift.
extension ServiceObjects {
    func properties(_ call: BusCall, _ object: ObjectPath, _ caller: Caller) throws(BusError) -> [BusValue] {
        switch call.member {
        case "Get":
            let args = try CallArguments(call, signature: "ss")
            let all = try propertyValues(of: object, interface: args.string(0), caller)
            guard let value = all[args.string(1)] else {
                throw .invalidArgs("no property \(args.string(1)) of \(args.string(0))")
            }
            return [.variant(value)]
        case "GetAll":
            let args = try CallArguments(call, signature: "s")
            return [.properties(try propertyValues(of: object, interface: args.string(0), caller))]
        case "Set":
            let args = try CallArguments(call, signature: "ssv")
            guard case .variant(let value) = args[2] else { throw .invalidArgs("Set takes a variant") }
            switch object {
            case .item(let reference) where args.string(0) == Self.itemInterface || args.string(0).isEmpty:
                try setItemProperty(args.string(1), value, try existingItem(reference, caller), caller)
            case .collection
            where (args.string(0) == Self.collectionInterface || args.string(0).isEmpty) && args.string(1) == "Label":
                guard let label = value.stringValue else { throw .invalidArgs("Label is a string") }
                try collectionLabel.set(label, caller)
            default:
                throw BusError(
                    "org.freedesktop.DBus.Error.PropertyReadOnly", "\(args.string(1)) of \(call.path) cannot be set")
            }
            return []
        default:
            throw .unknownMethod("no method \(call.member) of \(Self.propertiesInterface)")
        }
    }

    /// The properties of `object` under `interface` (an empty interface: the object's own).
    private func propertyValues(of object: ObjectPath, interface: String, _ caller: Caller) throws(BusError) -> [String:
        BusValue]
    {
        guard interface.isEmpty || interface == Self.interface(of: object) else {
            throw .invalidArgs("\(Self.interface(of: object)) is the interface of this object, not \(interface)")
        }
        switch object {
        case .service:
            return ["Collections": .paths([ObjectPath.collectionPath])]
        case .collection:
            // While locked the items' attributes are sealed (as on iOS): the collection lists none until Unlock.
            let items = keychain.isAvailable(.whenUnlocked) ? try face.items(caller) : []
            let created = vaultCreated()
            return [
                "Items": .paths(items.map { ObjectPath.itemPath($0.reference) }),
                "Label": .string(collectionLabel.current(caller)),
                "Locked": .bool(!keychain.isAvailable(.whenUnlocked)), "Created": .uint64(created),
                "Modified": .uint64(items.map { Self.seconds($0.modified) }.max() ?? created),
            ]
        case .item(let reference):
            let item = try existingItem(reference, caller)
            return [
                "Locked": .bool(!keychain.isAvailable(item.accessibility)), "Attributes": .stringMap(item.attributes),
                "Label": .string(item.label), "Created": .uint64(Self.seconds(item.created)),
                "Modified": .uint64(Self.seconds(item.modified)),
                "Type": .string(item.attributes["xdg:schema"] ?? ""),
            ]
        case .session, .prompt, .node:
            return [:]
        }
    }

    private func vaultCreated() -> UInt64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: keychain.vault.directory)
        return ((attributes?[.creationDate] ?? attributes?[.modificationDate]) as? Date).map(Self.seconds) ?? 0
    }

    static func seconds(_ date: Date) -> UInt64 { UInt64(max(0, date.timeIntervalSince1970)) }
}
