import Foundation
import Synchronization

/// Recently used rows, by UUID: the sealed row (the secret stays encrypted) and its decrypted
/// attributes. Valid for one keychain generation only: any change of an item or of the device state
/// empties it, so class-A metadata never outlives a lock. Bounded; emptied when full.
final class RowCache: Sendable {
    struct Entry {
        let row: StoredRow
        let attributes: [String: KeychainValue]
    }

    private struct State {
        var generation: UInt64 = .max
        var entries: [Data: Entry] = [:]
    }

    private let state = Mutex(State())
    private let capacity = 1024

    func entry(_ uuid: Data, generation: UInt64) -> Entry? {
        state.withLock { $0.generation == generation ? $0.entries[uuid] : nil }
    }

    func clear() {
        state.withLock { $0.entries.removeAll() }
    }

    func store(_ entry: Entry, generation: UInt64) {
        state.withLock { s in
            if s.generation != generation || s.entries.count >= capacity {
                s.entries.removeAll(keepingCapacity: true)
                s.generation = generation
            }
            s.entries[entry.row.uuid] = entry
        }
    }
}
