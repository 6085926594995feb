import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// Prompts the service handed out (Unlock's): who asked, what completes them, and the authentication
/// prompt raised for each in the engine's queue (answered by `keychainfs device prompt …`). A client has
/// at most ``maxPerPeer``, all clients ``maxTotal``; those of a client that leaves the bus are cancelled.
final class PromptTable: Sendable {
    static let maxPerPeer = 64
    static let maxTotal = 4096

    struct Prompt: Sendable {
        var owner: String
        /// The objects an unlock reports as unlocked.
        var objects: [String]
        /// The engine's prompt, once Prompt.Prompt raised it.
        var raised: UInt64?
    }

    private let state = Mutex((prompts: [UInt64: Prompt](), nextID: UInt64(1)))

    func add(owner: String, objects: [String]) throws(BusError) -> UInt64 {
        let outcome: Result<UInt64, BusError> = state.withLock { s in
            if s.prompts.count >= Self.maxTotal {
                return .failure(.failed("too many prompts pending (\(Self.maxTotal)); try again later"))
            }
            if s.prompts.values.count(where: { $0.owner == owner }) >= Self.maxPerPeer {
                return .failure(
                    .failed(
                        "a client may have at most \(Self.maxPerPeer) prompts pending; complete or dismiss one first"))
            }
            let id = s.nextID
            s.nextID += 1
            s.prompts[id] = Prompt(owner: owner, objects: objects)
            return .success(id)
        }
        return try outcome.get()
    }

    /// The prompt `id` of `caller` (another client's prompt is NoSuchObject).
    func prompt(_ id: UInt64, caller: String) throws(BusError) -> Prompt {
        guard let prompt = state.withLock({ $0.prompts[id] }), prompt.owner == caller else {
            throw .noSuchObject("no prompt \(ObjectPath.promptPath(id)) of this client")
        }
        return prompt
    }

    /// Records the engine's prompt for `id`; false when the prompt was raised already (Prompt called twice).
    func markRaised(_ id: UInt64, as raised: UInt64) -> Bool {
        state.withLock { s in
            guard s.prompts[id] != nil, s.prompts[id]!.raised == nil else { return false }
            s.prompts[id]!.raised = raised
            return true
        }
    }

    func isRaised(_ id: UInt64) -> Bool { state.withLock { $0.prompts[id]?.raised != nil } }

    /// Removes and returns prompt `id` (exactly one completion wins).
    func finish(_ id: UInt64) -> Prompt? { state.withLock { $0.prompts.removeValue(forKey: id) } }

    /// Removes every prompt of `owner`, returning the engine prompts to cancel.
    func removeAll(of owner: String) -> [UInt64] { remove(owners: { $0 == owner }) }

    /// Removes every client's prompts (the bus went away), returning the engine prompts to cancel.
    func removeEveryone() -> [UInt64] { remove(owners: { _ in true }) }

    private func remove(owners: (String) -> Bool) -> [UInt64] {
        state.withLock { s in
            let gone = s.prompts.filter { owners($0.value.owner) }
            for id in gone.keys { s.prompts[id] = nil }
            return gone.values.compactMap(\.raised)
        }
    }

    func exists(_ id: UInt64) -> Bool { state.withLock { $0.prompts[id] != nil } }
}
