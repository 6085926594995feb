import Foundation
import KeychainFSSodium
import Synchronization

/// One decrypted copy of a file's content, shared by every reader that opened the same version
/// (docs/filesystem.md: each open kept its own copy, and 3,000 descriptors of a 1 MiB value took the daemon to
/// 3.1 GB). Wiped on every device change and when its last reader lets go. Slices are copied out under
/// the lock, so the bytes are never shared beyond this object and the wipe is in place.
final class SharedPlaintext: Sendable {
    private let bytes: Mutex<Data?>
    /// What the copy counts against, given back at the wipe.
    private let charge: PlaintextBudget.Charge?

    /// `content` must not be used by the caller afterwards (the wipe would copy it instead of zeroing it).
    init(_ content: Data, charge: PlaintextBudget.Charge? = nil) {
        bytes = Mutex(content)
        self.charge = charge
    }

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
        let wiped = bytes.withLock { content -> Bool in
            guard content != nil else { return false }
            Sodium.wipe(&content!)
            content = nil
            return true
        }
        if wiped { charge?.release() }
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
    /// bytes (then `content` is wiped), else `content` itself, which newer opens will share, charged to
    /// `user` in `budget` (ENOMEM, and `content` wiped, beyond it).
    mutating func share(
        _ content: consuming Data, item: Data, file: ItemFile, user: UInt32, budget: PlaintextBudget
    ) throws(FSError) -> SharedPlaintext {
        let key = Key(item: item, file: file)
        if let existing = live[key]?.plaintext, existing.holds(content) {
            Sodium.wipe(&content)
            return existing
        }
        if live.count >= pruneAt {
            live = live.filter { $0.value.plaintext != nil }
            pruneAt = max(64, live.count * 2)
        }
        let charge: PlaintextBudget.Charge
        do throws(FSError) { charge = try budget.charge(content.count, to: user) } catch {
            Sodium.wipe(&content)
            throw error
        }
        let plaintext = SharedPlaintext(content, charge: charge)
        live[key] = Weak(plaintext: plaintext)
        return plaintext
    }

    /// The device changed: every copy goes, whoever holds it.
    mutating func wipeAll() {
        for entry in live.values { entry.plaintext?.wipe() }
        live = [:]
    }
}

/// The decrypted bytes the daemon holds for open readers, bounded per user and in all (measured:
/// a 1 MiB value rewritten and reopened 1,000 times, each open holding its own version, took the daemon to
/// 1.3 GB): an open or read that would need a copy beyond the bound is ENOMEM (docs/filesystem.md).
final class PlaintextBudget: Sendable {
    /// Per user: 128 copies of a 1 MiB value.
    static let bytesPerUser = 128 << 20
    /// For every user together.
    static let bytesInAll = 512 << 20

    private struct Held { var perUser: [UInt32: Int] = [:]; var total = 0 }
    private let held = Mutex(Held())

    /// `bytes` held for `user` until the charge is released (once).
    final class Charge: Sendable {
        private let budget: PlaintextBudget
        private let user: UInt32
        private let bytes: Int
        private let released = Atomic<Bool>(false)

        fileprivate init(_ budget: PlaintextBudget, user: UInt32, bytes: Int) {
            self.budget = budget
            self.user = user
            self.bytes = bytes
        }

        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            budget.give(bytes, from: user)
        }

        deinit { release() }
    }

    func charge(_ bytes: Int, to user: UInt32) throws(FSError) -> Charge {
        let refusal: String? = held.withLock { held in
            if held.perUser[user, default: 0] + bytes > Self.bytesPerUser {
                return "this user's open readers hold \(Self.bytesPerUser >> 20) MiB of decrypted values"
            }
            if held.total + bytes > Self.bytesInAll {
                return "open readers hold \(Self.bytesInAll >> 20) MiB of decrypted values"
            }
            held.perUser[user, default: 0] += bytes
            held.total += bytes
            return nil
        }
        if let refusal { throw FSError(ENOMEM, refusal + ": close some files first") }
        return Charge(self, user: user, bytes: bytes)
    }

    fileprivate func give(_ bytes: Int, from user: UInt32) {
        held.withLock { held in
            held.perUser[user, default: bytes] -= bytes
            if held.perUser[user] == 0 { held.perUser[user] = nil }
            held.total -= bytes
        }
    }

    /// Bytes held now, in all (for tests).
    var total: Int { held.withLock { $0.total } }
}
