import Foundation
import Synchronization

/// The engine's one source of time: what auto-lock, lockout delays, prompt timeouts, the 48-hour
/// biometric rule, biometric reuse and item dates read "now" from, and where their timers run.
/// The daemon uses ``WallClock``; a test device uses a ``VirtualClock`` that only its test moves.
public protocol KeychainClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Runs `action` once, `delay` seconds from now (on another thread, or inside ``VirtualClock/advance(by:)``).
    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void)
    /// Whether time passes only when a test says so: waiting then costs nothing, so a test device keeps
    /// the lockout delays a wall-clock test device skips.
    var isVirtual: Bool { get }
}

/// The system's clock and Dispatch's timers.
public struct WallClock: KeychainClock {
    public init() {}
    public func now() -> Date { Date() }
    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: action)
    }
    public var isVirtual: Bool { false }
}

/// A clock that stands still until ``advance(by:)``, which fires the timers that fall due, in order,
/// each at its own time, before it returns: a test waits five minutes in microseconds, the same every run.
/// Each reading is one microsecond after the one before (``tick``), so that two things never happen at
/// the same instant, as on a real device: an item made and a face enrolled one after the other are in
/// that order (`.biometryCurrentSet` decides by it).
public final class VirtualClock: KeychainClock {
    private struct Timer {
        var due: Date
        var order: UInt64
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var timers: [Timer] = []
        var scheduled: UInt64 = 0
    }

    private let state: Mutex<State>
    /// More timers falling due in one advance than this means a timer that re-arms itself at once.
    static let maximumFiredPerAdvance = 100_000

    public init(startingAt start: Date = Date()) { state = Mutex(State(now: start)) }

    /// How far each reading moves the clock.
    public static let tick: TimeInterval = 1e-6

    public func now() -> Date {
        state.withLock { s in
            s.now = s.now.addingTimeInterval(Self.tick)
            return s.now
        }
    }

    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.scheduled += 1
            s.timers.append(Timer(due: s.now.addingTimeInterval(max(0, delay)), order: s.scheduled, action: action))
        }
    }

    public var isVirtual: Bool { true }

    /// Moves time forward by `duration` (a negative one is ignored: time never goes back), firing each
    /// timer due by then at its due time, earliest first, on this thread.
    public func advance(by duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0 else { return }
        let target = state.withLock { $0.now.addingTimeInterval(seconds) }
        for _ in 0..<Self.maximumFiredPerAdvance {
            let due = state.withLock { s -> Timer? in
                guard
                    let next = s.timers.indices.filter({ s.timers[$0].due <= target })
                        .min(by: { (s.timers[$0].due, s.timers[$0].order) < (s.timers[$1].due, s.timers[$1].order) })
                else { return nil }
                s.now = max(s.now, s.timers[next].due)
                return s.timers.remove(at: next)
            }
            guard let due else { break }
            due.action()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// How many timers wait for their time.
    public var pendingTimers: Int { state.withLock { $0.timers.count } }
}
