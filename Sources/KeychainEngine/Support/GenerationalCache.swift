import Dispatch
import Synchronization

/// A bounded, thread-safe cache whose entries are valid for one keychain generation (see
/// ``Keychain/generation``): a lookup under another generation misses, and the first store under a new
/// generation empties it, so nothing cached outlives a change of the items or of the device state.
/// When full, an eighth of the entries (arbitrary ones) make room, so a working set near the capacity
/// keeps most of itself instead of starting over.
public final class GenerationalCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var generation: UInt64 = .max
        var entries: [Key: Value] = [:]
    }

    private let state = Mutex(State())
    /// The most entries kept.
    public let capacity: Int

    /// A cache of at most `capacity` entries.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value stored for `key` under `generation`, if any.
    public func value(_ key: Key, generation: UInt64) -> Value? {
        state.withLock { $0.generation == generation ? $0.entries[key] : nil }
    }

    /// Stores `value` for `key`, valid while the keychain's generation is `generation`.
    public func store(_ value: Value, for key: Key, generation: UInt64) {
        state.withLock { s in
            if s.generation != generation {
                s.entries.removeAll(keepingCapacity: true)
                s.generation = generation
            } else if s.entries.count >= capacity {
                for evicted in Array(s.entries.keys.prefix(max(1, capacity / 8))) { s.entries.removeValue(forKey: evicted) }
            }
            s.entries[key] = value
        }
    }

    /// Forgets every entry at once. Freeing thousands of entries takes milliseconds, which a device lock
    /// in progress should not wait for: the entries are unreachable when this returns, and freed on a
    /// background queue.
    public func removeAll() {
        let dropped = state.withLock { s -> [Key: Value] in
            defer { s.entries = [:] }
            return s.entries
        }
        guard !dropped.isEmpty else { return }
        cacheReaper.async { withExtendedLifetime(dropped) {} }
    }
}

/// Where dropped cache entries are freed.
private let cacheReaper = DispatchQueue(label: "keychainfs.cache-reaper", qos: .utility)
