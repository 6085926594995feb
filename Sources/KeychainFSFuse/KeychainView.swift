import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// The filesystem as a thin translation of paths into keychain calls (docs/spec.md §4). No FUSE types here:
/// ``FuseOperations`` turns kernel requests into these calls and their ``FSError``s into errnos.
package final class KeychainView: Sendable {
    /// Largest `value` accepted (docs/spec.md §4: bigger is EFBIG).
    package static let maxValueBytes = Keychain.maxValueBytes

    let keychain: Keychain
    /// The caller of requests when no access rules decide per request (the mount's access groups).
    let mountCaller: Caller
    /// The vault's `access.toml` rules, when the mount resolves a caller per request (docs/spec.md §12).
    package let accessPolicy: AccessPolicy?
    /// The caller of the request being served, set by the FUSE layer around each request while access
    /// rules exist (a task-local, so every keychain call the request makes carries it).
    @TaskLocal static var requestCaller: Caller?
    /// Accessibility given to items made with mkdir (nil: the class's default).
    let defaultAccessible: Accessibility?
    let mountTime = Date()
    let openFiles = OpenFiles()
    /// Group directories made with mkdir that hold no item yet, by `<class>/<name>` bytes.
    let pendingGroups = Mutex<Set<[UInt8]>>([])
    /// Items made by mkdir whose value is not written yet (stored at the close that writes it).
    let making = ItemsInTheMaking()
    let removals = Mutex(RemovalTracker())
    let paths = PathCache()
    let guards: LockGuards

    /// Opens of secrets through the mount are recorded here (docs/spec.md §8), if an audit log was asked for.
    package let audit: AuditLog?

    package init(
        keychain: Keychain, caller: Caller, defaultAccessible: Accessibility? = nil, guards: LockGuards = LockGuards(),
        accessPolicy: AccessPolicy? = nil, audit: AuditLog? = nil
    ) {
        self.keychain = keychain
        self.audit = audit
        self.mountCaller = caller
        self.accessPolicy = accessPolicy
        self.defaultAccessible = defaultAccessible
        self.guards = guards
        // Nothing decrypted outlives a lock: cached paths (with their attributes) go on every change,
        // open files' copies of secrets when the device state changes (the kernel's cache: FuseMount).
        keychain.addChangeObserver { [paths, openFiles] change in
            paths.clear(after: keychain.generation)
            guard change == .device else { return }
            openFiles.wipeOnDeviceChange(wipeWriters: guards.wipeWriters) { keychain.isAvailable($0) }
        }
    }

    /// Who the current request comes from.
    var caller: Caller { Self.requestCaller ?? mountCaller }

    /// Whether answers depend on the caller: then the kernel may cache no entry or attribute, and the path
    /// cache keeps each caller's answers apart.
    package var answersPerCaller: Bool { accessPolicy?.hasRules ?? false }

    /// The caller of a request from process `pid` of user `uid`; nil when strict mode refuses it.
    package func caller(pid: Int32, uid: UInt32) -> Caller? {
        accessPolicy.map { $0.caller(pid: pid, uid: uid) } ?? mountCaller
    }

    /// The path cache's key: the path, preceded by the caller's groups when a request caller is set.
    func cacheKey(_ path: FSPath) -> [UInt8] {
        guard let caller = Self.requestCaller else { return path.bytes }
        return Array(caller.accessGroups.joined(separator: "\u{0}").utf8) + [0, 1] + path.bytes
    }

    func naming(_ schema: ItemClassSchema) -> ItemNaming {
        ItemNaming(schema: schema, defaultGroup: caller.defaultAccessGroup ?? "")
    }

    // MARK: Resolving paths

    func resolve(_ path: FSPath) throws(FSError) -> FSNode {
        let generation = keychain.generation
        let key = cacheKey(path)
        if let cached = paths.node(key, generation: generation) { return cached }
        let node = try resolveUncached(path)
        paths.store(node, for: key, generation: generation)
        return node
    }

    /// Resolves one level, taking the parent from the cache: a miss on `…/item/value` costs one item
    /// query, not a walk from the root.
    private func resolveUncached(_ path: FSPath) throws(FSError) -> FSNode {
        try path.checkNameLengths()
        let c = path.components
        switch c.count {
        case 0:
            return .root
        case 1:
            guard let code = String(validating: c[0], as: UTF8.self), let schema = Schema.schema(for: code) else {
                throw FSError(ENOENT, "not a class directory")
            }
            return .classDirectory(schema)
        case 2:
            guard case .classDirectory(let schema) = try resolve(path.parent) else {
                throw FSError(ENOENT, "no such class")
            }
            return try resolveGroup(schema, c[1], mustExist: true)
        case 3:
            // The item query names the group: no separate check that the group exists.
            guard case .classDirectory(let schema) = try resolve(path.parent.parent),
                case .group(_, let groupValue, let groupName) = try resolveGroup(schema, c[1], mustExist: false)
            else {
                throw FSError(ENOENT, "no such group")
            }
            do {
                return .item(try resolveItem(schema, groupValue: groupValue, groupName: groupName, name: c[2]))
            } catch let error where error.errno == ENOENT {
                guard let made = making.item(at: Array(path.bytes.dropFirst())) else { throw error }
                return .item(item(inTheMaking: made))
            }
        default:
            guard case .item(let item) = try resolve(path.parent) else {
                throw FSError(ENOTDIR, "not an item directory")
            }
            guard let file = ItemFile.files(of: item.schema).first(where: { Array($0.rawValue.utf8) == c[3] }),
                !removals.withLock({ $0.isValueHidden(in: item.path) })
            else {
                throw FSError(ENOENT, "no such file in an item directory")
            }
            if c.count == 4 { return .file(item, file) }
            throw FSError(ENOTDIR, "'\(file.rawValue)' is a file")
        }
    }

    private func resolveGroup(_ schema: ItemClassSchema, _ name: [UInt8], mustExist: Bool) throws(FSError) -> FSNode {
        let naming = naming(schema)
        let text = String(decoding: name, as: UTF8.self)
        if ItemNaming.isShortened(name) {
            guard let match = try listGroups(schema).first(where: { $0.name.utf8.elementsEqual(name) }) else {
                throw FSError(ENOENT, "no such group")
            }
            return .group(schema, value: match.value, name: text)
        }
        guard let value = naming.parseGroup(name) else { throw FSError(ENOENT, "not a canonical name") }
        if !mustExist || pendingGroups.withLock({ $0.contains(groupKey(schema, text)) })
            || !making.items(under: groupKey(schema, text) + [0x2F]).isEmpty
        {
            return .group(schema, value: value, name: text)
        }
        _ = try keychainCall { () throws(KeychainError) in
            try keychain.copyMatching(groupQuery(schema, value), caller: caller)
        }
        return .group(schema, value: value, name: text)
    }

    private func resolveItem(_ schema: ItemClassSchema, groupValue: KeychainValue, groupName: String, name: [UInt8])
        throws(FSError) -> FSItem
    {
        let text = String(decoding: name, as: UTF8.self)
        if ItemNaming.isShortened(name) {
            guard
                let listed = try listItems(schema, groupValue: groupValue).first(where: {
                    $0.name.utf8.elementsEqual(name)
                })
            else {
                throw FSError(ENOENT, "no such item")
            }
            let query: KeychainDictionary = [
                QueryKey.class: .string(schema.code), QueryKey.valuePersistentRef: .data(listed.persistentRef),
                QueryKey.returnAttributes: true, QueryKey.returnPersistentRef: true,
            ]
            let found = try keychainCall { () throws(KeychainError) in try keychain.copyMatching(query, caller: caller)
            }
            return try item(schema, from: found, path: schema.code + "/" + groupName + "/" + text)
        }
        let naming = naming(schema)
        guard let key = naming.parseItem(name) else { throw FSError(ENOENT, "not a canonical item name") }
        let query = key.merging([QueryKey.class: .string(schema.code), schema.namingAttributes.group.code: groupValue])
        { $1 }
        let itemPath = schema.code + "/" + groupName + "/" + text
        var attributeQuery = query
        attributeQuery[QueryKey.returnAttributes] = true
        attributeQuery[QueryKey.returnPersistentRef] = true
        attributeQuery[QueryKey.matchLimit] = 2
        let found: [KeychainValue]
        do {
            found = try keychain.copyMatching(attributeQuery, caller: caller)?.arrayValue ?? []
        } catch let error where error.status == SecStatus.interactionNotAllowed {
            return try sealedItem(schema, query: query, path: itemPath)
        } catch {
            throw FSError(error)
        }
        // Without its value-describing qualifiers a name may fit two items; then only their full names exist.
        let disambiguated = naming.disambiguators.contains { key[$0.code] != nil }
        guard found.count == 1 || (disambiguated && !found.isEmpty) else {
            throw FSError(ENOENT, "the name fits more than one item")
        }
        return try item(schema, from: found.first, path: itemPath)
    }

    /// The item a name addresses while its class is unavailable, found by its lookup columns only, so
    /// that it can be deleted (docs/spec.md §2); anything that needs its attributes or secret is EACCES.
    private func sealedItem(_ schema: ItemClassSchema, query: KeychainDictionary, path: String) throws(FSError)
        -> FSItem
    {
        let locked = FSError(EACCES, "the item's class is unavailable: the device is locked")
        if schema.isVirtual { throw locked }  // the identity join is read-only: nothing to delete
        let matches = try keychainCall { () throws(KeychainError) in
            try keychain.sealedMatches(query, caller: caller, limit: 2)
        }
        guard matches.count == 1, let match = matches.first else { throw locked }
        var attributes = query.filter { schema.attribute($0.key) != nil }
        attributes[Attributes.accessible.code] = .string(match.accessibility.rawValue)
        var item = FSItem(schema: schema, attributes: attributes, persistentRef: match.persistentRef, path: path)
        item.isSealed = true
        return item
    }

    /// An item in the making as the filesystem sees it: made when its directory was.
    func item(inTheMaking made: ItemsInTheMaking.Item) -> FSItem {
        var attributes = made.attributes
        attributes[QueryKey.class] = nil
        // What the add will give it: the caller's first group unless one was set.
        if attributes[Attributes.accessGroup.code] == nil, let group = caller.defaultAccessGroup {
            attributes[Attributes.accessGroup.code] = .string(group)
        }
        attributes[Attributes.creationDate.code] = .date(made.created)
        attributes[Attributes.modificationDate.code] = .date(made.created)
        return FSItem(
            schema: made.schema, attributes: attributes, persistentRef: made.reference,
            path: String(decoding: made.path, as: UTF8.self))
    }

    func item(_ schema: ItemClassSchema, from result: KeychainValue?, path: String) throws(FSError) -> FSItem {
        guard var attributes = result?.dictionaryValue,
            let ref = attributes.removeValue(forKey: QueryKey.valuePersistentRef)?.dataValue
        else {
            throw FSError(EIO, "the keychain returned no item")
        }
        return FSItem(schema: schema, attributes: attributes, persistentRef: ref, path: path)
    }

    func groupQuery(_ schema: ItemClassSchema, _ value: KeychainValue) -> KeychainDictionary {
        [
            QueryKey.class: .string(schema.code), schema.namingAttributes.group.code: value,
            Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
        ]
    }

    /// Names are keys as bytes, never as Strings: Swift compares Strings by canonical equivalence, so NFC
    /// "café" and NFD "café" would be one name, where the keychain has two items.
    func groupKey(_ schema: ItemClassSchema, _ name: String) -> [UInt8] {
        Array((schema.code + "/").utf8) + Array(name.utf8)
    }

    // MARK: Listing

    /// The groups of a class (services, for genp): from its items, plus the ones just made with mkdir.
    func listGroups(_ schema: ItemClassSchema) throws(FSError) -> [(name: String, value: KeychainValue)] {
        let query: KeychainDictionary = [
            QueryKey.class: .string(schema.code), Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
        ]
        let naming = naming(schema)
        var seen = Set<[UInt8]>()
        var groups: [(String, KeychainValue)] = []
        // One item at a time: a class of a million items is listed in the memory of its groups.
        try keychainCall { () throws(KeychainError) in
            try keychain.enumerateAttributes(query, caller: caller) { attributes, _ in
                let name = naming.groupName(attributes)
                if seen.insert(Array(name.utf8)).inserted {
                    groups.append((name, attributes[schema.namingAttributes.group.code] ?? ""))
                }
            }
        }
        let prefix = Array((schema.code + "/").utf8)
        for key in pendingGroups.withLock({ $0 }) where key.starts(with: prefix) {
            let name = Array(key.dropFirst(prefix.count))
            if seen.insert(name).inserted, let value = naming.parseGroup(name) {
                groups.append((String(decoding: name, as: UTF8.self), value))
            }
        }
        // The groups of items in the making (one may have moved to a group of its own with an xattr).
        for made in making.items(under: prefix) {
            let name = Array(made.path.dropFirst(prefix.count).prefix { $0 != 0x2F })
            if seen.insert(name).inserted, let value = made.attributes[schema.namingAttributes.group.code] {
                groups.append((String(decoding: name, as: UTF8.self), value))
            }
        }
        return groups
    }

    /// The items of a group, by name: one item's attributes at a time are read, and only what names it
    /// and what its directory's attributes need is kept (a group of 100,000 items, in the memory of their names).
    func listItems(_ schema: ItemClassSchema, groupValue: KeychainValue) throws(FSError) -> [ListedItem] {
        let naming = naming(schema)
        // A class without value-describing qualifiers (genp, inet) names every item in full at once: no
        // attributes are kept for a second naming (measured: a tenth of a listing's work per item).
        let mayDisambiguate = !naming.disambiguators.isEmpty
        var listed: [(plain: String, nameAttributes: [String: KeychainValue], ref: Data, modified: Date)] = []
        try keychainCall { () throws(KeychainError) in
            try keychain.enumerateAttributes(groupQuery(schema, groupValue), caller: caller) { attributes, ref in
                let modified =
                    if case .date(let d)? = attributes[Attributes.modificationDate.code] { d } else {
                        Date(timeIntervalSince1970: 0)
                    }
                let kept = mayDisambiguate ? naming.nameAttributes(attributes) : [:]
                listed.append((naming.itemName(attributes), kept, ref, modified))
            }
        }
        guard mayDisambiguate else {
            return listed.map { ListedItem(name: $0.plain, persistentRef: $0.ref, modified: $0.modified) }
        }
        var uses: [[UInt8]: Int] = [:]
        for entry in listed { uses[Array(entry.plain.utf8), default: 0] += 1 }
        return listed.map { entry in
            // Without its value-describing qualifiers a name may fit two items; then only their full names exist.
            let name =
                uses[Array(entry.plain.utf8)]! > 1
                ? naming.itemName(entry.nameAttributes, disambiguated: true) : entry.plain
            return ListedItem(name: name, persistentRef: entry.ref, modified: entry.modified)
        }
    }

    /// ``listItems(_:groupValue:)`` of the group at `path`, kept by the path cache for one generation.
    private func groupListing(_ path: FSPath, _ schema: ItemClassSchema, _ value: KeychainValue) throws(FSError)
        -> [ListedItem]
    {
        let key = cacheKey(path), generation = keychain.generation
        if let listed = paths.listing(key, generation: generation) { return listed }
        let listed = try listItems(schema, groupValue: value)
        paths.storeListing(listed, for: key, generation: generation)
        return listed
    }

    /// Directory entries of `path` with their attributes (without `.` and `..`).
    func list(_ path: FSPath, by pid: Int32) throws(FSError) -> [(name: String, attributes: FileAttributes)] {
        switch try resolve(path) {
        case .root:
            return Schema.classes.enumerated().map { ($1.code, directoryAttributes(Inode.classDirectory($0))) }
        case .classDirectory(let schema):
            return try listGroups(schema).map { ($0.name, directoryAttributes(Inode.group(schema.code, $0.name))) }
        case .group(let schema, let value, let name):
            let stored = try groupListing(path, schema, value).map {
                (
                    $0.name,
                    FileAttributes(
                        isDirectory: true, inode: Inode.item($0.persistentRef), size: 0, modified: $0.modified)
                )
            }
            let prefix = Array((schema.code + "/" + name + "/").utf8)
            let storedNames = Set(stored.map { Array($0.0.utf8) })
            return stored
                + making.items(under: prefix).filter { !storedNames.contains(Array($0.path.dropFirst(prefix.count))) }
                .map {
                    (
                        String(decoding: $0.path.dropFirst(prefix.count), as: UTF8.self),
                        FileAttributes(
                            isDirectory: true, inode: Inode.item($0.reference), size: 0, modified: $0.created)
                    )
                }
        case .item(let item):
            removals.withLock { $0.noteListing(of: item.path, by: pid) }
            if removals.withLock({ $0.isValueHidden(in: item.path) }) { return [] }
            var entries: [(name: String, attributes: FileAttributes)] = []
            for file in ItemFile.files(of: item.schema) {
                // While locked, `value` is listed without its size (so `rm -r` of a locked item works).
                let attributes: FileAttributes
                do throws(FSError) {
                    attributes = try fileAttributes(item, file)
                } catch let error where error.errno == EACCES {
                    attributes = FileAttributes(
                        isDirectory: false, inode: Inode.file(file, ofItem: item.inode), size: 0,
                        modified: item.modified)
                }
                entries.append((file.rawValue, attributes))
            }
            return entries
        case .file(_, let file):
            throw FSError(ENOTDIR, "'\(file.rawValue)' is a file")
        }
    }

    // MARK: Attributes

    func attributes(_ path: FSPath) throws(FSError) -> FileAttributes {
        switch try resolve(path) {
        case .root: return directoryAttributes(Inode.root)
        case .classDirectory(let schema):
            return directoryAttributes(Inode.classDirectory(Schema.classes.firstIndex { $0.code == schema.code } ?? 0))
        case .group(let schema, _, let name): return directoryAttributes(Inode.group(schema.code, name))
        case .item(let item):
            return FileAttributes(isDirectory: true, inode: item.inode, size: 0, modified: item.modified)
        case .file(let item, let file): return try fileAttributes(item, file)
        }
    }

    /// A file whose content is unavailable right now (its class is locked) still exists, so that
    /// `rm -r` can remove its item while locked; nil for anything else. Its size is not told.
    func unavailableFile(_ path: FSPath) throws(FSError) -> FileAttributes? {
        guard case .file(let item, let file) = try resolve(path) else { return nil }
        return FileAttributes(
            isDirectory: false, inode: Inode.file(file, ofItem: item.inode), size: 0, modified: item.modified)
    }

    private func directoryAttributes(_ inode: UInt64) -> FileAttributes {
        FileAttributes(isDirectory: true, inode: inode, size: 0, modified: mountTime)
    }

    func fileAttributes(_ item: FSItem, _ file: ItemFile) throws(FSError) -> FileAttributes {
        let size: Int
        if file == .value, Keychain.needsAuthorization(item.attributes) {
            size = 0  // protected values are direct_io: their size is known only after an authenticated open
        } else {
            do throws(FSError) { size = try contentLength(of: item, file) } catch let error where error.errno == EPERM {
                size = 0
            }  // a withheld secret
        }
        return FileAttributes(
            isDirectory: false, inode: Inode.file(file, ofItem: item.inode), size: size, modified: item.modified)
    }

    /// The lock check for a reader that holds a secret it read a moment ago: the item's class must still
    /// be available (identities, whose halves may differ, are read again instead).
    func checkAvailable(_ item: FSItem, _ file: ItemFile) throws(FSError) -> Bool {
        guard !item.schema.isVirtual, let accessibility = item.accessibility else { return false }
        guard keychain.isAvailable(accessibility) else {
            throw FSError(EACCES, "the item's class is unavailable: the device is locked")
        }
        return true
    }

    /// A file's content, through the engine's one read policy (the lock, access control, withheld
    /// secrets as EPERM, the identity join): the secret, or an identity's certificate or private key.
    /// `authorization`: an open file's answer for a protected value. Without one, a protected value is
    /// refused (EACCES) rather than prompted for here: prompts happen at OPEN, never on a read.
    func content(of item: FSItem, _ file: ItemFile, authorization: Data? = nil) throws(FSError) -> Data {
        if item.inTheMaking { return Data() }  // a writer's start: readers are refused at open (ENODATA)
        let options = AuthenticationOptions(ui: .fail, contextToken: authorization)
        return try keychainCall { () throws(KeychainError) in
            try keychain.read(Self.part(file), of: item.persistentRef, caller: caller, options: options)
        }
    }

    /// ``content(of:_:authorization:)`` and the version it is (``Keychain/readVersioned(_:of:caller:options:)``).
    func versionedContent(of item: FSItem, _ file: ItemFile, authorization: Data? = nil) throws(FSError) -> (
        data: Data, version: Data?
    ) {
        let options = AuthenticationOptions(ui: .fail, contextToken: authorization)
        return try keychainCall { () throws(KeychainError) in
            try keychain.readVersioned(Self.part(file), of: item.persistentRef, caller: caller, options: options)
        }
    }

    /// The part of an item a file shows.
    private static func part(_ file: ItemFile) -> ItemPart { file == .key ? .identityKey : .data }

    /// The length of ``content(of:_:authorization:)``, under the same policy, without decrypting a secret
    /// that needs no authorization (``Keychain/length(_:of:caller:)``).
    func contentLength(of item: FSItem, _ file: ItemFile) throws(FSError) -> Int {
        if item.inTheMaking { return 0 }
        return try keychainCall { () throws(KeychainError) in
            try keychain.length(Self.part(file), of: item.persistentRef, caller: caller)
        }
    }

    /// Refuses changes in classes that have no table of their own (the identity join is read-only).
    func requireWritable(_ schema: ItemClassSchema) throws(FSError) {
        if schema.isVirtual {
            throw FSError(EROFS, "\(schema.code)/ is a read-only view: change its certificate or key")
        }
    }

    /// `authorization`: the open file's answer for a protected value; without one, a protected value is
    /// refused (EACCES) rather than prompted for on a FUSE thread.
    func commit(_ data: Data, to item: FSItem, authorization: Data? = nil) throws(FSError) {
        var reference = item.persistentRef
        if item.inTheMaking {
            guard let made = try makeItem(item, value: data) else { return }
            reference = made  // made already by another handle's close: this one updates it
        }
        let options = AuthenticationOptions(ui: .fail, contextToken: authorization)
        try keychainCall { () throws(KeychainError) in
            try keychain.write(data, to: reference, caller: caller, options: options)
        }
    }

    /// Stores an item in the making with its value: one SecItemAdd, the creation's one commit. Returns the
    /// stored item's reference if another close made it already (nil: made now).
    private func makeItem(_ item: FSItem, value: Data) throws(FSError) -> Data? {
        let made = try making.make(item.persistentRef) { (made) throws(FSError) -> Data in
            var attributes = made.attributes
            attributes[QueryKey.valueData] = .data(value)
            attributes[QueryKey.returnPersistentRef] = true
            let added = try keychainCall { () throws(KeychainError) in try keychain.add(attributes, caller: caller) }
            guard let reference = added?.dataValue else { throw FSError(EIO, "the keychain returned no item") }
            return reference
        }
        paths.clear()
        return made
    }
}
