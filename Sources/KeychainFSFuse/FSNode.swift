import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A resolved path in the mount.
enum FSNode: Sendable {
    case root
    case classDirectory(ItemClassSchema)
    /// `<class>/<group>`: the value of the class's first naming attribute (a service, for genp).
    case group(ItemClassSchema, value: KeychainValue, name: String)
    case item(FSItem)
    case file(FSItem, ItemFile)
}

/// The files in an item directory: `value` for stored classes; an identity shows its two halves.
enum ItemFile: String, CaseIterable, Sendable {
    case value
    case certificate
    case key

    static func files(of schema: ItemClassSchema) -> [ItemFile] { schema.isVirtual ? [.certificate, .key] : [.value] }
}

/// An item as the filesystem sees it: its attributes and the persistent reference that addresses it.
/// An item as a listing keeps it: its name and what its directory's attributes need, not its attributes.
struct ListedItem: Sendable {
    let name: String
    let persistentRef: Data
    let modified: Date
}

struct FSItem: Sendable {
    let schema: ItemClassSchema
    let attributes: [String: KeychainValue]
    let persistentRef: Data
    /// `<class>/<group>/<item>`, for bookkeeping only (never logged).
    let path: String
    /// Found by name while its class is unavailable: `attributes` holds only what the name says and its
    /// protection class. It can be deleted; its attributes and secret stay unreadable (EACCES).
    var isSealed = false

    var inode: UInt64 { Inode.item(persistentRef) }

    /// Made by mkdir, its value not written yet: it lives in ``ItemsInTheMaking`` only, not in the keychain.
    var inTheMaking: Bool { ItemsInTheMaking.isReference(persistentRef) }

    /// A query addressing exactly this item, stable across renames.
    func query(_ extra: KeychainDictionary = [:]) -> KeychainDictionary {
        [QueryKey.class: .string(schema.code), QueryKey.valuePersistentRef: .data(persistentRef)].merging(extra) { $1 }
    }

    var accessibility: Accessibility? {
        attributes[Attributes.accessible.code]?.stringValue.flatMap(Accessibility.init(rawValue:))
    }

    var modified: Date {
        if case .date(let d) = attributes[Attributes.modificationDate.code] { return d }
        return Date(timeIntervalSince1970: 0)
    }
}

/// A path split into byte components (names may hold any bytes but `/` and NUL).
struct FSPath {
    let components: [[UInt8]]
    /// The path's bytes, as the kernel gave them.
    let bytes: [UInt8]

    init(_ cPath: UnsafePointer<CChar>) {
        self.init(bytes: Array(UnsafeRawBufferPointer(start: cPath, count: strlen(cPath))))
    }

    init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    init(bytes: [UInt8]) {
        self.init(bytes: bytes, components: bytes.split(separator: 0x2F).map(Array.init))
    }

    private init(bytes: [UInt8], components: [[UInt8]]) {
        self.bytes = bytes
        self.components = components
    }

    /// The path of `components` (a node's names, as the kernel gave them), without splitting the joined
    /// bytes again: every request on an inode builds its path (measured). Names that are empty or hold a `/`
    /// (never from the kernel) take the splitting way, so that both ways give the same path.
    init(components: [[UInt8]]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(components.reduce(components.count) { $0 + $1.count })
        for component in components {
            bytes.append(0x2F)
            bytes.append(contentsOf: component)
        }
        if bytes.isEmpty { bytes = [0x2F] }
        if components.contains(where: { $0.isEmpty || $0.contains(0x2F) }) {
            self.init(bytes: bytes)
        } else {
            self.init(bytes: bytes, components: components)
        }
    }

    /// This path with `name` below it.
    func appending(_ name: [UInt8]) -> FSPath { FSPath(components: components + [name]) }

    var depth: Int { components.count }

    /// Names longer than NAME_MAX are refused as by any Linux filesystem (FUSE itself allows 1024 bytes).
    func checkNameLengths() throws(FSError) {
        if components.contains(where: { $0.count > 255 }) {
            throw FSError(ENAMETOOLONG, "a name is longer than 255 bytes")
        }
    }
    var parent: FSPath { FSPath(components: Array(components.dropLast())) }
}
