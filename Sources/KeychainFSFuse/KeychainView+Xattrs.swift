import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel

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
        guard let attribute else {
            if item.inTheMaking { throw FSError(ENODATA, "an item in the making has no persistent reference yet") }
            return item.persistentRef
        }
        guard let value = item.attributes[attribute.code] else {
            throw FSError(ENODATA, "the item has no \(attribute.name)")
        }
        return XattrFormat.encode(value, as: attribute)
    }

    func listXattrs(_ path: FSPath) throws(FSError) -> [String] {
        guard case .item(let item) = try resolve(path) else { return [] }
        try requireOpen(item)
        return item.schema.attributes.filter { item.attributes[$0.code] != nil }.map { XattrFormat.namespace + $0.name }
            + (item.inTheMaking ? [] : [XattrFormat.namespace + XattrFormat.persistentRefName])
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
        if item.inTheMaking {
            // What the add would refuse at once is refused now, as an update of a stored item would be.
            if attribute.code == Attributes.accessible.code, value.stringValue.flatMap(Accessibility.init) == nil {
                throw FSError(EINVAL, "not an accessibility")
            }
            if attribute.code == Attributes.accessible.code,
                value.stringValue == Accessibility.whenPasscodeSetThisDeviceOnly.rawValue,
                !keychain.deviceStatus().passcodeSet
            {
                throw FSError(KeychainError(SecStatus.authFailed, "this accessibility needs a device passcode"))
            }
            return try changeInTheMaking(item, attribute) { $0[attribute.code] = value }
        }
        // The keychain does not know items in the making: one of them is a collision too.
        var moved = item.attributes
        moved[attribute.code] = value
        if making.item(at: namePath(item.schema, moved)) != nil {
            throw FSError(EEXIST, "an item in the making has that name")
        }
        try keychainCall { () throws(KeychainError) in
            try keychain.update(item.query(), [attribute.code: value], caller: caller)
        }
    }

    /// `<class>/<group>/<item>` of an item with `attributes`.
    private func namePath(_ schema: ItemClassSchema, _ attributes: KeychainDictionary) -> [UInt8] {
        let naming = naming(schema)
        return Array((schema.code + "/" + naming.groupName(attributes) + "/" + naming.itemName(attributes)).utf8)
    }

    /// An xattr set or removed on an item in the making: kept for its add; a naming attribute moves it.
    private func changeInTheMaking(
        _ item: FSItem, _ attribute: AttributeDescriptor, _ change: @escaping (inout KeychainDictionary) -> Void
    ) throws(FSError) {
        let naming = naming(item.schema)
        let names =
            [item.schema.namingAttributes.group.code, item.schema.namingAttributes.item.code]
            + naming.qualifiers.map(\.code)
        guard let current = making.item(item.persistentRef) else { throw FSError(ENOENT, "the item is gone") }
        var attributes = current.attributes
        change(&attributes)
        let path = names.contains(attribute.code) ? namePath(item.schema, attributes) : current.path
        if path != current.path { try requireFree(path) }
        try making.update(item.persistentRef) { made in
            made.attributes = attributes
            made.path = path
        }
        paths.clear()
        if names.contains(attribute.code) { making.entryChanged(item.persistentRef) }
    }

    /// Refuses `path` (`<class>/<group>/<item>`) unless nothing is there: an item found is EEXIST, and a
    /// lookup that fails for any reason but ENOENT (a long name's listing, a locked class) refuses too
    /// rather than letting an item in the making move onto one it could not see.
    private func requireFree(_ path: [UInt8]) throws(FSError) {
        let found: Result<FSNode, FSError> = Result { () throws(FSError) in try resolve(FSPath(bytes: [0x2F] + path)) }
        switch found {
        case .success: throw FSError(EEXIST, "an item has that name")
        case .failure(let error) where error.errno == ENOENT: return
        case .failure(let error): throw error
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
        if item.inTheMaking {
            // Its accessibility goes back to the mount's default, as a stored item's goes to the class's.
            let fallback: KeychainValue? =
                attribute.code == Attributes.accessible.code
                ? .string((defaultAccessible ?? item.schema.defaultAccessibility).rawValue) : nil
            return try changeInTheMaking(item, attribute) { $0[attribute.code] = fallback }
        }
        var moved = item.attributes
        moved[attribute.code] = nil
        if making.item(at: namePath(item.schema, moved)) != nil {
            throw FSError(EEXIST, "an item in the making has that name")
        }
        try keychainCall { () throws(KeychainError) in
            try keychain.update(item.query(), [:], removing: [attribute.code], caller: caller)
        }
    }
}
