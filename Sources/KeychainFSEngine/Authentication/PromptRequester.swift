import KeychainFSModel
import KeychainFSStore

/// Who waits on the prompts a call raises, when that can end before the prompt does: a control-socket
/// peer whose connection closes. The server binds one around each request (a task-local, which also works
/// on plain threads); ``PromptQueue`` notes it on every prompt raised under it and tells it, so the server
/// watches that connection, and ``PromptQueue/cancel(requester:)`` ends the prompts of one that went away.
public final class PromptRequester: Sendable {
    @TaskLocal public static var current: PromptRequester?

    public let id: UInt64
    let prompted: @Sendable () -> Void

    /// `prompted` runs (on the raising thread) when a prompt of this requester starts waiting for an answer.
    public init(id: UInt64, prompted: @escaping @Sendable () -> Void) {
        self.id = id
        self.prompted = prompted
    }
}
