import KeychainFSEngine
import KeychainFSModel
import Synchronization

extension SimulatedDevice {
    /// Something the device's keychain did, in the order it happened.
    public enum Event: Sendable, Equatable {
        /// A SecItem call (also those SecKey and SecPKCS12Import make), with its class, its OSStatus and the app
        /// that made it.
        case call(Call)
        /// A Face ID or passcode sheet came up: what it asked for, its reason, the item it is for, the app.
        case promptRaised(PromptKind, reason: String, item: String?, app: String?)
        /// The sheet was answered (or timed out): how, never what was typed.
        case promptAnswered(PromptKind, PromptAnswerKind)
        /// The device changed state: locked, unlocked, rebooted (before first unlock), passcode removed.
        case deviceState(DeviceState)

        /// The call, when the event is one.
        public var call: Call? { if case .call(let call) = self { call } else { nil } }
    }

    /// One SecItem call as the keychain answered it.
    public struct Call: Sendable, Equatable {
        public var operation: KeychainOperation
        /// `genp`, `inet`, `cert`, `keys`, `idnt` (nil when the query named no class: errSecParam).
        public var itemClass: String?
        public var status: OSStatus
        /// The bundle id of the app that called (``App/bundleID``).
        public var app: String?

        public init(operation: KeychainOperation, itemClass: String?, status: OSStatus, app: String?) {
            self.operation = operation
            self.itemClass = itemClass
            self.status = status
            self.app = app
        }
    }

    /// What the keychain did since the device was made (the latest ``Events/limit`` events): each call
    /// with its class, outcome and app, prompts raised and how they were answered, state transitions.
    /// Recorded where the engine reports them, whatever API the code under test used.
    public var events: [Event] { eventLog.recorded }

    /// Forgets the events so far (to assert on what comes next).
    public func clearEvents() { eventLog.clear() }
}

/// The device's event record, bounded: a test that makes millions of calls keeps the latest only.
final class EventLog: Sendable {
    static let limit = 10_000
    private let events = Mutex<[SimulatedDevice.Event]>([])

    var recorded: [SimulatedDevice.Event] { events.withLock { $0 } }

    func clear() { events.withLock { $0.removeAll() } }

    func record(_ event: KeychainEvent) {
        let recorded: SimulatedDevice.Event =
            switch event {
            case .call(let operation, let itemClass, let status, let caller):
                .call(
                    SimulatedDevice.Call(
                        operation: operation, itemClass: itemClass, status: status, app: caller.application))
            case .promptRaised(let kind, let reason, let item, let application):
                .promptRaised(kind, reason: reason, item: item, app: application)
            case .promptAnswered(let kind, let answer): .promptAnswered(kind, answer)
            case .deviceState(let state): .deviceState(state)
            }
        events.withLock { list in
            if list.count >= Self.limit { list.removeFirst(list.count - Self.limit + 1) }
            list.append(recorded)
        }
    }
}
