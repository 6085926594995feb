import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel

/// mkdir = an item in the making (Add at the close that writes its value), rmdir = Delete, mv = Update of
/// the naming attributes (docs/spec.md §4 "Operations").
extension KeychainView {
    func makeDirectory(_ path: FSPath) throws(FSError) {
        try path.checkNameLengths()
        switch path.depth {
        case 0, 1:
            if case .classDirectory = try? resolve(path) { throw FSError(EEXIST, "class directories always exist") }
            throw FSError(EPERM, "the mount's root holds only the class directories")
        case 2:
            guard case .classDirectory(let schema) = try resolve(path.parent) else {
                throw FSError(ENOENT, "no such class")
            }
            try requireWritable(schema)
            let name = String(decoding: path.components[1], as: UTF8.self)
            guard naming(schema).parseGroup(path.components[1]) != nil,
                path.components[1].count <= ItemNaming.maxNameBytes
            else {
                throw FSError(EINVAL, "not a canonical name: escape %, ;, control and non-UTF-8 bytes as %XX")
            }
            if (try? resolve(path)) != nil { throw FSError(EEXIST, "the group exists") }
            pendingGroups.withLock { _ = $0.insert(groupKey(schema, name)) }
            paths.clear()
        case 3:
            guard case .group(let schema, let groupValue, _) = try resolve(path.parent) else {
                throw FSError(ENOENT, "no such group")
            }
            try requireWritable(schema)
            let naming = naming(schema)
            guard let key = naming.parseItem(path.components[2]), !ItemNaming.isShortened(path.components[2]) else {
                throw FSError(
                    EINVAL, "not a canonical item name: <name>[;<code>=<value>…] with qualifiers in alphabetical order")
            }
            var attributes = naming.explicitAttributes(key)
            attributes[QueryKey.class] = .string(schema.code)
            attributes[schema.namingAttributes.group.code] = groupValue
            // Explicit, so that a writer's open checks the lock of the class the item will have.
            attributes[Attributes.accessible.code] = .string(
                (defaultAccessible ?? schema.defaultAccessibility).rawValue)
            do throws(FSError) {
                _ = try resolve(path)
                throw FSError(EEXIST, "the item exists")
            } catch let error where error.errno == ENOENT {}
            // Stored at the close that writes its value: one commit (``ItemsInTheMaking``).
            guard making.insert(schema, attributes: attributes, path: Array(path.bytes.dropFirst())) != nil else {
                throw FSError(EEXIST, "the item exists")
            }
            paths.clear()
        default:
            throw FSError(EINVAL, "an item directory holds only 'value'")
        }
    }

    func removeDirectory(_ path: FSPath) throws(FSError) {
        switch try resolve(path) {
        case .root, .classDirectory:
            throw FSError(EPERM, "class directories cannot be removed")
        case .group(let schema, let value, let name):
            try requireWritable(schema)
            if !making.items(under: Array((schema.code + "/" + name + "/").utf8)).isEmpty {
                throw FSError(ENOTEMPTY, "the group holds an item in the making")
            }
            if try groupHoldsItems(schema, value) { throw FSError(ENOTEMPTY, "the group holds items") }
            pendingGroups.withLock { _ = $0.remove(groupKey(schema, name)) }
            paths.clear()
        case .item(let item):
            try requireWritable(item.schema)
            if item.inTheMaking {
                making.remove(item.persistentRef)  // never stored: nothing to delete
                paths.clear()
            } else {
                try keychainCall { () throws(KeychainError) in try keychain.delete(item.query(), caller: caller) }
            }
            removals.withLock { $0.forget(item.path) }
            // Like any directory, the group outlives its last entry until it is removed itself (rm -r GROUP).
            pendingGroups.withLock {
                _ = $0.insert(groupKey(item.schema, String(item.path.split(separator: "/", maxSplits: 2)[1])))
            }
        case .file:
            throw FSError(ENOTDIR, "not a directory")
        }
    }

    private func groupHoldsItems(_ schema: ItemClassSchema, _ value: KeychainValue) throws(FSError) -> Bool {
        do {
            _ = try keychain.copyMatching(groupQuery(schema, value), caller: caller)
            return true
        } catch let error where error.status == SecStatus.itemNotFound {
            return false
        } catch {
            throw FSError(error)
        }
    }

    /// `unlink value` alone is refused; inside `rm -r ITEM` it is accepted (see ``RemovalTracker``).
    func unlink(_ path: FSPath, by pid: Int32) throws(FSError) {
        guard case .file(let item, _) = try resolve(path) else {
            throw FSError(EISDIR, "only an item's files are files")
        }
        try requireWritable(item.schema)
        guard removals.withLock({ $0.acceptUnlink(in: item.path, by: pid) }) else {
            throw FSError(
                EPERM, "an item's value cannot be unlinked; remove the item directory (rmdir / rm -r) to delete it")
        }
        paths.clear()
    }

    func rename(_ from: FSPath, to: FSPath) throws(FSError) {
        // Onto itself: nothing to do if it exists (a stale dentry's name may name nothing now: ENOENT).
        if from.components == to.components { _ = try resolve(from); return }
        switch try resolve(from) {
        case .item(let item):
            try requireWritable(item.schema)
            if item.isSealed { throw FSError(EACCES, "the item's class is unavailable: the device is locked") }
            try renameItem(item, to: to)
        case .group(let schema, let value, let name):
            try requireWritable(schema)
            try renameGroup(schema, value: value, name: name, to: to)
        default: throw FSError(EPERM, "only item and group directories can be renamed")
        }
    }

    private func renameItem(_ item: FSItem, to: FSPath) throws(FSError) {
        let (changes, removing) = try renameChanges(item, to: to)
        if making.item(at: Array(to.bytes.dropFirst())) != nil {
            throw FSError(EEXIST, "an item in the making has that name")
        }
        if item.inTheMaking {
            if (try? resolve(to)) != nil { throw FSError(EEXIST, "the target item exists") }
            try making.update(item.persistentRef) { made in
                made.attributes.merge(changes) { $1 }
                for code in removing { made.attributes[code] = nil }
                made.path = Array(to.bytes.dropFirst())
            }
            paths.clear()
        } else {
            try keychainCall { () throws(KeychainError) in
                try keychain.update(item.query(), changes, removing: removing, caller: caller)
            }
        }
        removals.withLock { $0.forget(item.path) }
    }

    /// The attributes a rename of `item` to `to` sets and removes (its naming attributes).
    private func renameChanges(_ item: FSItem, to: FSPath) throws(FSError) -> (KeychainDictionary, Set<String>) {
        guard to.depth == 3 else { throw FSError(EINVAL, "an item directory must stay at item depth") }
        guard to.components[0] == Array(item.schema.code.utf8) else {
            throw FSError(EXDEV, "items cannot move to another class")
        }
        guard case .group(_, let groupValue, _) = try resolve(to.parent) else { throw FSError(ENOENT, "no such group") }
        let naming = naming(item.schema)
        guard let key = naming.parseItem(to.components[2]), !ItemNaming.isShortened(to.components[2]) else {
            throw FSError(EINVAL, "not a canonical item name")
        }
        var changes = naming.explicitAttributes(key)
        changes[item.schema.namingAttributes.group.code] = groupValue
        let removing = Set(naming.qualifiers.map(\.code)).subtracting(changes.keys).intersection(item.attributes.keys)
        return (changes, removing)
    }

    private func renameGroup(_ schema: ItemClassSchema, value: KeychainValue, name: String, to: FSPath) throws(FSError)
    {
        guard to.depth == 2 else { throw FSError(EINVAL, "a group directory must stay at group depth") }
        guard to.components[0] == Array(schema.code.utf8) else {
            throw FSError(EXDEV, "groups cannot move to another class")
        }
        guard let newValue = naming(schema).parseGroup(to.components[1]), !ItemNaming.isShortened(to.components[1])
        else {
            throw FSError(EINVAL, "not a canonical name")
        }
        if (try? resolve(to)) != nil { throw FSError(EEXIST, "the target group exists") }
        let newName = String(decoding: to.components[1], as: UTF8.self)
        let wasPending = pendingGroups.withLock { $0.remove(groupKey(schema, name)) != nil }
        do throws(KeychainError) {
            try keychain.update(
                groupQuery(schema, value), [schema.namingAttributes.group.code: newValue], caller: caller)
        } catch let error where error.status == SecStatus.itemNotFound && wasPending {
            // An empty group made with mkdir: only its name moves.
        } catch {
            if wasPending { pendingGroups.withLock { _ = $0.insert(groupKey(schema, name)) } }
            throw FSError(error)
        }
        if wasPending { pendingGroups.withLock { _ = $0.insert(groupKey(schema, newName)) } }
        paths.clear()
    }

    /// Files can only be `value`, which always exists: creating any other file is refused.
    func create(_ path: FSPath) throws(FSError) -> Never {
        if path.depth == 4, case .item(let item) = try resolve(path.parent) {
            try requireWritable(item.schema)
            throw FSError(EINVAL, "an item directory holds only its value")
        }
        throw FSError(EINVAL, "files exist only as ITEM/value; make items with mkdir")
    }
}
