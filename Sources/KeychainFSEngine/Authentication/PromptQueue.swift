import KeychainFSModel
import KeychainFSStore
import Foundation
import Synchronization

/// How a prompt was answered (docs/authentication-table.md, rule 3).
public enum PromptAnswer: Sendable, Equatable {
    /// A face that matches the enrolled one.
    case match
    /// A face that does not.
    case noMatch
    /// The user tapped Cancel (or the caller went away: FUSE_INTERRUPT).
    case cancel
    /// The device passcode was typed.
    case passcode(Data)
    /// Nobody answered within the prompt timeout.
    case timeout
    /// The user does what the prompt can be satisfied with: a matching face where a face will do,
    /// the device's (correct) passcode where only the passcode will (`device prompt auto accept`).
    case accept
}

/// What answers prompts nobody answers by hand: `device prompt auto MODE`.
public enum PromptAutoMode: String, Sendable, CaseIterable {
    case match, noMatch = "no-match", cancel, accept, off
}

/// What a prompt asks for.
public enum PromptKind: String, Sendable {
    case biometry, passcode, biometryOrPasscode = "biometry-or-passcode"
}

/// A pending prompt, as `keychainfs device prompts` lists it.
public struct PromptInfo: Sendable, Equatable {
    public var id: UInt64
    public var kind: PromptKind
    /// kSecUseOperationPrompt / LAContext's localizedReason.
    public var reason: String
    public var pid: Int32?
    public var executable: String?
    /// The item's class and label/service/account hint, never its secret.
    public var item: String?
    public var raised: Date

    public init(
        id: UInt64, kind: PromptKind, reason: String, pid: Int32?, executable: String?, item: String?, raised: Date
    ) {
        self.id = id
        self.kind = kind
        self.reason = reason
        self.pid = pid
        self.executable = executable
        self.item = item
        self.raised = raised
    }
}

/// The daemon's queue of authentication prompts (docs/spec.md §11). Whoever needs user authentication raises a
/// prompt with a callback and does not wait holding anything; an answer (by hand, by auto mode, by
/// timeout, or a cancel from the requester) calls it exactly once, on another thread. Nothing persists:
/// a daemon's prompts end with it, as their callers do.
public final class PromptQueue: Sendable {
    /// Default seconds before an unanswered prompt ends as a user cancel.
    public static let defaultTimeout: TimeInterval = 30

    private struct Pending {
        var info: PromptInfo
        var requester: UInt64?
        var deliver: @Sendable (PromptAnswer) -> Void
    }

    private struct State {
        var pending: [Pending] = []
        var queuedAnswers: [PromptAnswer] = []
        var auto: PromptAutoMode = .cancel
        var timeout: TimeInterval = PromptQueue.defaultTimeout
        var nextID: UInt64 = 1
        var raisedCount: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Where prompts are stamped and time out.
    private let clock: any KeychainClock

    public init(clock: any KeychainClock = WallClock()) { self.clock = clock }

    /// The automatic answer (default `.cancel`, so an unattended run never hangs).
    public var autoMode: PromptAutoMode {
        get { state.withLock { $0.auto } }
        set { state.withLock { $0.auto = newValue } }
    }

    /// Seconds an unanswered prompt waits before it ends as a user cancel.
    public var timeout: TimeInterval {
        get { state.withLock { $0.timeout } }
        set { state.withLock { $0.timeout = max(0.01, newValue) } }
    }

    /// How many prompts were ever raised (tests count prompts per open with it).
    public var raisedCount: UInt64 { state.withLock { $0.raisedCount } }

    /// The prompts waiting for an answer, oldest first.
    public var pending: [PromptInfo] { state.withLock { $0.pending.map(\.info) } }

    /// Raises a prompt; `deliver` is called once with its answer, never on the calling thread's stack.
    /// Returns the prompt's id (for ``cancel(_:)``).
    @discardableResult
    public func raise(
        kind: PromptKind, reason: String, caller: Caller, item: String?,
        deliver: @escaping @Sendable (PromptAnswer) -> Void
    ) -> UInt64 {
        let requester = PromptRequester.current
        let (id, immediate) = state.withLock { s -> (UInt64, PromptAnswer?) in
            let id = s.nextID
            s.nextID += 1
            s.raisedCount += 1
            if !s.queuedAnswers.isEmpty { return (id, s.queuedAnswers.removeFirst()) }
            let auto: PromptAnswer? =
                switch s.auto {
                case .match: .match
                case .noMatch: .noMatch
                case .cancel: .cancel
                case .accept: .accept
                case .off: nil
                }
            if auto == nil {
                let info = PromptInfo(
                    id: id, kind: kind, reason: reason, pid: caller.pid, executable: caller.executable, item: item,
                    raised: clock.now())
                s.pending.append(Pending(info: info, requester: requester?.id, deliver: deliver))
                // Armed before the prompt can be seen as pending: a test that sees it and advances the
                // clock must find its timeout already counting (the clock never takes this lock).
                clock.schedule(after: s.timeout) { [weak self] in self?.finish(id, .timeout) }
            }
            return (id, auto)
        }
        if let immediate {
            Self.deliverOnThreadOfItsOwn { deliver(immediate) }
        } else {
            requester?.prompted()
        }
        return id
    }

    /// Answers the oldest pending prompt, or (with `next`, or when none is pending and `next` is asked
    /// for) the next one to be raised. Returns the prompt answered, nil when the answer was queued.
    public func answer(_ answer: PromptAnswer, next: Bool) throws(KeychainError) -> PromptInfo? {
        let taken = state.withLock { s -> Pending? in
            if next || s.pending.isEmpty {
                if next { s.queuedAnswers.append(answer) }
                return nil
            }
            return s.pending.removeFirst()
        }
        guard let taken else {
            if next { return nil }
            throw KeychainError(SecStatus.itemNotFound, "no prompt is pending (use --next to answer the next one)")
        }
        Self.deliverOnThreadOfItsOwn { taken.deliver(answer) }
        return taken.info
    }

    /// Ends a prompt whose requester went away (FUSE_INTERRUPT, a closed socket) as a user cancel.
    public func cancel(_ id: UInt64) { finish(id, .cancel) }

    /// Ends, as a user cancel, every pending prompt raised for `requester`, which went away (its connection
    /// closed): the next answer goes to a live caller's prompt, not to a dead one's.
    public func cancel(requester: UInt64) {
        let taken = state.withLock { s -> [Pending] in
            let gone = s.pending.filter { $0.requester == requester }
            s.pending.removeAll { $0.requester == requester }
            return gone
        }
        for prompt in taken { prompt.deliver(.cancel) }
    }

    /// Runs a delivery off the caller's stack on a new thread, not on Dispatch's global queue: that queue's
    /// few workers (one per core) can all be blocked by callers waiting for answers (a test kit's parallel
    /// tests, each waiting in a SecItem call), and an answer queued behind them came minutes late.
    private static func deliverOnThreadOfItsOwn(_ delivery: @escaping @Sendable () -> Void) {
        Thread.detachNewThread(delivery)
    }

    private func finish(_ id: UInt64, _ answer: PromptAnswer) {
        let taken = state.withLock { s -> Pending? in
            guard let index = s.pending.firstIndex(where: { $0.info.id == id }) else { return nil }
            return s.pending.remove(at: index)
        }
        taken?.deliver(answer)
    }
}
