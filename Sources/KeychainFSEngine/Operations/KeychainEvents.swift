import Foundation
import KeychainFSModel
import Synchronization

/// A SecItem call the engine answered.
public enum KeychainOperation: String, Sendable {
    case add, copyMatching, update, delete
}

/// How a prompt was answered, without what was typed.
public enum PromptAnswerKind: String, Sendable {
    case match, noMatch, cancel, passcode, timeout, accept

    public init(_ answer: PromptAnswer) {
        self =
            switch answer {
            case .match: .match
            case .noMatch: .noMatch
            case .cancel: .cancel
            case .passcode: .passcode
            case .timeout: .timeout
            case .accept: .accept
            }
    }
}

/// What the keychain did, as its listeners hear it (KeychainTesting's `device.events`): calls with their
/// class, outcome and caller, prompts raised and answered, device state transitions. Never a secret,
/// a passcode or a query's values.
public enum KeychainEvent: Sendable, Equatable {
    case call(KeychainOperation, itemClass: String?, status: OSStatus, caller: Caller)
    case promptRaised(kind: PromptKind, reason: String, item: String?, application: String?)
    case promptAnswered(kind: PromptKind, answer: PromptAnswerKind)
    case deviceState(DeviceState)
}

/// The listeners and the last device state they heard; free when nobody listens.
final class EventListeners: Sendable {
    let listeners = Mutex<[@Sendable (KeychainEvent) -> Void]>([])
    let anyone = Atomic<Bool>(false)
    let lastState = Mutex<DeviceState?>(nil)
}

extension Keychain {
    /// Calls `listener` with each event, on the thread where it happened (keep it short, never call the
    /// keychain from it). Listening starts with the device's current state.
    public func addEventListener(_ listener: @escaping @Sendable (KeychainEvent) -> Void) {
        eventListeners.listeners.withLock { $0.append(listener) }
        eventListeners.anyone.store(true, ordering: .releasing)
        reportDeviceState()
    }

    func report(_ event: KeychainEvent) {
        guard eventListeners.anyone.load(ordering: .acquiring) else { return }
        for listener in eventListeners.listeners.withLock({ $0 }) { listener(event) }
    }

    /// Reports the device state if it changed since the last report.
    func reportDeviceState() {
        guard eventListeners.anyone.load(ordering: .acquiring) else { return }
        let state = protection.withLock { $0.state }
        let changed = eventListeners.lastState.withLock { last in
            defer { last = state }
            return last != state
        }
        if changed { report(.deviceState(state)) }
    }

    /// Runs one SecItem call and reports it with its status.
    func reporting<T>(
        _ operation: KeychainOperation, _ query: KeychainDictionary, _ caller: Caller,
        _ body: () throws(KeychainError) -> T
    ) throws(KeychainError) -> T {
        guard eventListeners.anyone.load(ordering: .acquiring) else { return try body() }
        let itemClass = query[QueryKey.class]?.stringValue
        do {
            let result = try body()
            report(.call(operation, itemClass: itemClass, status: SecStatus.success, caller: caller))
            return result
        } catch {
            report(.call(operation, itemClass: itemClass, status: error.status, caller: caller))
            throw error
        }
    }
}
