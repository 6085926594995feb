import Foundation
import SodiumCrypto
import Synchronization

/// One decrypted copy of a file's content, shared by every reader that opened the same version (issue
/// 22, defect 20: each open kept its own copy, and 3,000 descriptors of a 1 MiB value took the daemon to
/// 3.1 GB). Wiped on every device change and when its last reader lets go. Slices are copied out under
/// the lock, so the bytes are never shared beyond this object and the wipe is in place.
final class SharedPlaintext: Sendable {
    private let bytes: Mutex<Data?>

    /// `content` must not be used by the caller afterwards (the wipe would copy it instead of zeroing it).
    init(_ content: Data) { bytes = Mutex(content) }

    deinit { wipe() }

    /// `size` bytes from `offset`; nil once wiped.
    func slice(offset: Int, size: Int) -> Data? {
        bytes.withLock { $0.map { KeychainView.slice($0, offset: offset, size: size) } }
    }

    func holds(_ content: Data) -> Bool {
        bytes.withLock { current in
            guard let current, current.count == content.count else { return false }
            return current == content
        }
    }

    func wipe() {
        bytes.withLock { content in
            if content != nil { Sodium.wipe(&content!) }
            content = nil
        }
    }
}

/// The live copies by file, so an open of a version already held shares it (``OpenFiles``).
struct SharedPlaintexts {
    private struct Key: Hashable { let item: Data, file: ItemFile }
    private struct Weak { weak var plaintext: SharedPlaintext? }
    private var live: [Key: Weak] = [:]
    /// Entries whose copy is gone are dropped when the table doubles.
    private var pruneAt = 64

    /// The copy of `content` for `file` of `item`: the one readers already share if it holds the same
    /// bytes (then `content` is wiped), else `content` itself, which newer opens will share.
    mutating func share(_ content: consuming Data, item: Data, file: ItemFile) -> SharedPlaintext {
        let key = Key(item: item, file: file)
        if let existing = live[key]?.plaintext, existing.holds(content) {
            Sodium.wipe(&content)
            return existing
        }
        if live.count >= pruneAt {
            live = live.filter { $0.value.plaintext != nil }
            pruneAt = max(64, live.count * 2)
        }
        let plaintext = SharedPlaintext(content)
        live[key] = Weak(plaintext: plaintext)
        return plaintext
    }

    /// The device changed: every copy goes, whoever holds it.
    mutating func wipeAll() {
        for entry in live.values { entry.plaintext?.wipe() }
        live = [:]
    }
}
