import Foundation
import KeychainFSEngine
import KeychainFSModel

extension SimulatedDevice {
    /// The device's authentication prompts (Face ID or passcode sheets raised by protected items and
    /// LAContext), answered as `keychainfs device prompt …` answers them.
    public struct Prompts: Sendable {
        let queue: PromptQueue

        /// What the user does at a prompt.
        public enum Answer: Sendable, Equatable {
            case match, noMatch, cancel
            /// What satisfies the prompt: a matching face where a face will do, else the device's passcode.
            case accept
            /// Types this passcode.
            case passcode(String)
        }

        /// What answers a prompt nobody answered in advance.
        public enum AutomaticAnswer: Sendable, Equatable {
            case match, noMatch, cancel
            /// What satisfies each prompt: a matching face where a face will do, else the device's passcode
            /// (`device prompt auto accept`).
            case accept
        }

        /// Queues `answer` for the next prompt raised (`device prompt … --next`): arm it, then make the call.
        /// Answers are used in the order they were queued.
        public func answerNext(_ answer: Answer) {
            _ = try? queue.answer(answer.engineAnswer, next: true)  // queuing never throws
        }

        /// Answers the oldest pending prompt (one raised while ``automatic`` is nil); throws
        /// errSecItemNotFound when none is pending.
        public func answerPending(_ answer: Answer) throws(KeychainError) {
            _ = try queue.answer(answer.engineAnswer, next: false)
        }

        /// The answer to a prompt with no queued answer: `.cancel` by default, so nothing ever waits; nil
        /// leaves prompts pending (``pending``) until answered or timed out (``timeout`` on the device's clock).
        public var automatic: AutomaticAnswer? {
            get {
                switch queue.autoMode {
                case .match: .match
                case .noMatch: .noMatch
                case .cancel: .cancel
                case .accept: .accept
                case .off: nil
                }
            }
            nonmutating set {
                queue.autoMode =
                    switch newValue {
                    case .match: .match
                    case .noMatch: .noMatch
                    case .cancel: .cancel
                    case .accept: .accept
                    case nil: .off
                    }
            }
        }

        /// How long an unanswered prompt waits, on the device's clock, before it ends as a user cancel
        /// (errSecUserCanceled); 30 seconds unless set.
        public var timeout: Duration {
            get { .milliseconds(Int64((queue.timeout * 1000).rounded())) }
            nonmutating set {
                queue.timeout = Double(newValue.components.seconds) + Double(newValue.components.attoseconds) / 1e18
            }
        }

        /// The prompts waiting for an answer, oldest first: their reason and the item they are for.
        public var pending: [PromptInfo] { queue.pending }

        /// The oldest pending prompt, waiting for one (this thread sleeps) up to `timeout`; nil if none came.
        /// For a call made with ``SimulatedDevice/runInBackground(as:_:)`` while ``automatic`` is nil.
        public func waitForPending(timeout: Duration) -> PromptInfo? { poll(for: timeout) { pending.first } }

        /// How many prompts were raised since the device was made.
        public var raisedCount: Int { Int(queue.raisedCount) }
    }
}

extension SimulatedDevice.Prompts.Answer {
    var engineAnswer: PromptAnswer {
        switch self {
        case .match: .match
        case .noMatch: .noMatch
        case .cancel: .cancel
        case .accept: .accept
        case .passcode(let passcode): .passcode(Data(passcode.utf8))
        }
    }
}
