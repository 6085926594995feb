import Dispatch
import Synchronization

/// A bounded, thread-safe cache whose entries are valid for one keychain generation (see
/// ``Keychain/generation``): a lookup under another generation misses, and the first store under a new
/// generation empties it, so nothing cached outlives a change of the items or of the device state.
///
/// Entries live in two halves: new ones go to `recent`; when it holds half the capacity it becomes `older`
/// and the previous `older` is dropped; a hit in `older` moves back to `recent`. A working set up to half
/// the capacity stays whole, and every operation is O(1). (Evicting "an eighth of the keys" from the front
/// of one dictionary, as this did before, left the back of its hash table full: lookups probed ever longer
/// runs, and `ls -l` of 100,000 items slowed from 0.3 ms to 3 ms a name.)
///
/// Its lookups and stores are inlinable: a generic class of another module is otherwise run unspecialized,
/// through witness tables and runtime metadata (measured: a row cache hit cost 5,000 instructions that way).
public final class GenerationalCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline struct State {
        @usableFromInline var generation: UInt64 = .max
        /// Stores under an older generation are dropped (``removeAll(olderThan:)``).
        @usableFromInline var floor: UInt64 = 0
        @usableFromInline var recent: [Key: Value] = [:]
        @usableFromInline var older: [Key: Value] = [:]

        @usableFromInline init() {}

        /// Makes `recent` the older half once it is full; returns the half dropped, to free off the lock.
        @inlinable mutating func rotate(at half: Int) -> [Key: Value] {
            guard recent.count >= half else { return [:] }
            defer { older = recent; recent = [:] }
            return older
        }
    }

    @usableFromInline let state = Mutex(State())
    /// The most entries kept.
    public let capacity: Int

    /// A cache of at most `capacity` entries.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    @inlinable var half: Int { max(1, capacity / 2) }

    /// The value stored for `key` under `generation`, if any.
    @inlinable public func value(_ key: Key, generation: UInt64) -> Value? {
        var dropped: [Key: Value] = [:]
        let value = state.withLock { s -> Value? in
            guard s.generation == generation else { return nil }
            if let value = s.recent[key] { return value }
            guard let value = s.older.removeValue(forKey: key) else { return nil }
            s.recent[key] = value
            dropped = s.rotate(at: half)
            return value
        }
        reap(dropped)
        return value
    }

    /// Stores `value` for `key`, valid while the keychain's generation is `generation`.
    @inlinable public func store(_ value: Value, for key: Key, generation: UInt64) {
        var dropped: [Key: Value] = [:]
        state.withLock { s in
            guard generation >= s.floor else { return }
            if s.generation != generation {
                s.recent.removeAll(keepingCapacity: true)
                dropped = s.older
                s.older = [:]
                s.generation = generation
            }
            s.older.removeValue(forKey: key)
            s.recent[key] = value
            if dropped.isEmpty { dropped = s.rotate(at: half) }
        }
        reap(dropped)
    }

    /// How many entries are kept now.
    package var count: Int { state.withLock { $0.recent.count + $0.older.count } }
    /// How many entries the two tables have room for without growing (for the test that they stay bounded).
    package var reservedCapacity: Int { state.withLock { $0.recent.capacity + $0.older.capacity } }

    /// Forgets every entry at once. Freeing thousands of entries takes milliseconds, which a device lock
    /// in progress should not wait for: the entries are unreachable when this returns, and freed on a
    /// background queue a moment later; a few are freed before it returns (``reap(_:)``).
    public func removeAll() {
        removeAll(olderThan: 0)
    }

    /// ``removeAll()`` after a change of the keychain, told the generation read after it: a value worked
    /// out before the change and stored after this (under its older generation) is dropped, so nothing
    /// cached then (class-A attributes before a lock) stays in memory.
    public func removeAll(olderThan generation: UInt64) {
        let dropped = state.withLock { s -> ([Key: Value], [Key: Value]) in
            defer { s.recent = [:]; s.older = [:]; s.floor = max(s.floor, generation) }
            return (s.recent, s.older)
        }
        reap(dropped.0)
        reap(dropped.1)
    }

    /// Frees `dropped`: here when it is small, else on a background queue a moment later. Waking the queue's
    /// thread costs a system call and, on a machine of two cores, a thread competing with the caller: more
    /// than freeing a few entries (every write of the keychain drops the handful its previous lookups cached;
    /// measured). A large drop waits ``reapDelay`` (see there).
    @inlinable func reap(_ dropped: [Key: Value]) {
        guard dropped.count > inlineReapLimit else { return }
        cacheReaper.asyncAfter(deadline: .now() + reapDelay) { withExtendedLifetime(dropped) {} }
    }
}

/// Up to how many dropped entries are freed by the call that dropped them (see ``GenerationalCache/reap(_:)``).
@usableFromInline let inlineReapLimit = 64

/// How long a large drop waits before it is freed. Large drops come from a change after many lookups (a
/// listing) and above all from a device lock, which then invalidates the kernel's cache of every value
/// served, on every core, before it returns: freed at once, thousands of entries took a core from it (measured: a
/// third of the lock's time with 1,000 values cached on two cores). The entries are unreachable
/// from the moment they are dropped; a cache's older half rotated out waits the same.
@usableFromInline let reapDelay = DispatchTimeInterval.milliseconds(100)

/// Where dropped cache entries are freed.
@usableFromInline let cacheReaper = DispatchQueue(label: "keychainfs.cache-reaper", qos: .utility)
