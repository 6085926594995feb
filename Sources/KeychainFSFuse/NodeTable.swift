import Foundation
import Synchronization

/// The inodes the kernel holds (from LOOKUP, MKDIR and CREATE replies), each with its parent and name,
/// so a request on an inode becomes a path for ``KeychainView``. Counts follow the kernel's FORGETs.
/// An item keeps its inode (from its persistent reference) across renames: a lookup under its new name
/// moves its node, and requests through an old dentry then reach the item where it is now.
final class NodeTable: Sendable {
    struct Node {
        var parent: UInt64
        var name: [UInt8]
        var lookups: UInt64
    }

    private let nodes = Mutex<[UInt64: Node]>([:])

    /// The path of `inode` ("/" for the root); nil for an inode the kernel should no longer hold.
    func path(_ inode: UInt64) -> FSPath? {
        nodes.withLock { table in
            var components: [[UInt8]] = []
            var current = inode
            while current != Inode.root {
                guard components.count < 8, let node = table[current] else { return nil }
                components.append(node.name)
                current = node.parent
            }
            return FSPath(components: components.reversed())
        }
    }

    /// One more kernel reference to `inode`, now known as `name` in `parent`.
    func remember(_ inode: UInt64, parent: UInt64, name: [UInt8]) {
        guard inode != Inode.root else { return }
        nodes.withLock { table in
            var node = table[inode] ?? Node(parent: parent, name: name, lookups: 0)
            node.parent = parent
            node.name = name
            node.lookups += 1
            table[inode] = node
        }
    }

    /// After a rename through the mount: the node moves, its references stay.
    func move(_ inode: UInt64, to parent: UInt64, name: [UInt8]) {
        nodes.withLock { table in
            table[inode]?.parent = parent
            table[inode]?.name = name
        }
    }

    func forget(_ inode: UInt64, _ count: UInt64) {
        nodes.withLock { table in
            guard var node = table[inode] else { return }
            node.lookups = node.lookups > count ? node.lookups - count : 0
            table[inode] = node.lookups == 0 ? nil : node
        }
    }

    /// Where the kernel knows `inode`: its parent and name.
    func entry(_ inode: UInt64) -> (parent: UInt64, name: [UInt8])? {
        nodes.withLock { table in table[inode].map { ($0.parent, $0.name) } }
    }
}
