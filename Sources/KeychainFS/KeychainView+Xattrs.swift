import CFuse
import Foundation
import ItemNaming
import KeychainEngine
import KeychainModel

/// Item attributes as `user.<constant name>` xattrs on the item directory (docs/spec.md §4).
extension KeychainView {
    private func itemAndAttribute(_ path: FSPath, _ name: String, missing: Int32) throws(FSError) -> (
        FSItem, AttributeDescriptor?
    ) {
        guard case .item(let item) = try resolve(path) else {
            throw FSError(missing, "attributes live on item directories")
        }
        try requireOpen(item)
        guard name.hasPrefix(XattrFormat.namespace) else {
            throw FSError(missing, "keychain attributes are in the user. namespace")
        }
        let constant = String(name.dropFirst(XattrFormat.namespace.count))
        if constant == XattrFormat.persistentRefName { return (item, nil) }
        guard let attribute = item.schema.attribute(named: constant) else {
            throw FSError(missing, "'\(constant)' is not an attribute of class '\(item.schema.code)'")
        }
        return (item, attribute)
    }

    /// A sealed item (found by name while locked) has no readable attributes.
    private func requireOpen(_ item: FSItem) throws(FSError) {
        if item.isSealed { throw FSError(EACCES, "the item's class is unavailable: the device is locked") }
    }

    func getXattr(_ path: FSPath, _ name: String) throws(FSError) -> Data {
        let (item, attribute) = try itemAndAttribute(path, name, missing: ENODATA)
        guard let attribute else { return item.persistentRef }
        guard let value = item.attributes[attribute.code] else {
            throw FSError(ENODATA, "the item has no \(attribute.name)")
        }
        return XattrFormat.encode(value, as: attribute)
    }

    func listXattrs(_ path: FSPath) throws(FSError) -> [String] {
        guard case .item(let item) = try resolve(path) else { return [] }
        try requireOpen(item)
        return item.schema.attributes.filter { item.attributes[$0.code] != nil }.map { XattrFormat.namespace + $0.name }
            + [XattrFormat.namespace + XattrFormat.persistentRefName]
    }

    func setXattr(_ path: FSPath, _ name: String, _ bytes: Data, flags: Int32) throws(FSError) {
        let (item, attribute) = try itemAndAttribute(path, name, missing: ENOTSUP)
        try requireWritable(item.schema)
        guard let attribute, !attribute.flags.contains(.readOnlyInFilesystem), !attribute.flags.contains(.systemManaged)
        else {
            throw FSError(EPERM, "\(name) is read-only")
        }
        guard let value = XattrFormat.decode(bytes, as: attribute) else {
            throw FSError(EINVAL, "not a valid value for \(attribute.name)")
        }
        let present = item.attributes[attribute.code] != nil
        if flags & Int32(XATTR_CREATE) != 0, present { throw FSError(EEXIST, "\(attribute.name) is already set") }
        if flags & Int32(XATTR_REPLACE) != 0, !present { throw FSError(ENODATA, "\(attribute.name) is not set") }
        try keychainCall { () throws(KeychainError) in
            try keychain.update(item.query(), [attribute.code: value], caller: caller)
        }
    }

    /// Removing a primary-key attribute sets its default (docs/spec.md §4); an optional one disappears.
    func removeXattr(_ path: FSPath, _ name: String) throws(FSError) {
        let (item, attribute) = try itemAndAttribute(path, name, missing: ENODATA)
        try requireWritable(item.schema)
        guard let attribute, !attribute.flags.contains(.readOnlyInFilesystem), !attribute.flags.contains(.systemManaged)
        else {
            throw FSError(EPERM, "\(name) is read-only")
        }
        guard item.attributes[attribute.code] != nil else {
            throw FSError(ENODATA, "the item has no \(attribute.name)")
        }
        try keychainCall { () throws(KeychainError) in
            try keychain.update(item.query(), [:], removing: [attribute.code], caller: caller)
        }
    }
}
