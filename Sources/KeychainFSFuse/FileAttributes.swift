import Foundation
import KeychainFSEngine
import KeychainFSModel

/// What `stat` shows for a node.
package struct FileAttributes: Sendable {
    package var isDirectory: Bool
    package var inode: UInt64
    package var size: Int
    package var modified: Date

    /// Directories 0700, `value` 0600: private to the mounting user (docs/spec.md §4 "Mount behaviour").
    package var permissions: UInt32 { isDirectory ? 0o700 : 0o600 }
}

/// Inode numbers that stay the same for an item across its life: derived from its persistent
/// reference (which survives updates and renames), never reused by another item.
enum Inode {
    static let root: UInt64 = 1

    static func classDirectory(_ index: Int) -> UInt64 { UInt64(2 + index) }

    static func item(_ persistentRef: Data) -> UInt64 { hash(persistentRef) & ~3 | 1 << 63 }
    static func file(_ file: ItemFile, ofItem inode: UInt64) -> UInt64 {
        file == .key ? inode | 3 : inode | 1
    }
    /// The item an item or file inode belongs to (nil for the root, class and group directories).
    static func owningItem(_ inode: UInt64) -> UInt64? {
        inode & 1 << 63 != 0 && inode & 3 != 2 ? inode & ~3 : nil
    }
    static func group(_ classCode: String, _ name: String) -> UInt64 {
        hash(Data((classCode + "/" + name).utf8)) & ~3 | 2 | 1 << 63
    }

    private static func hash(_ data: Data) -> UInt64 { StableHash.fnv1a64(data) }
}
