import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium
import Synchronization

/// LAContexts that evaluated a policy successfully, by the random token the daemon handed them: a
/// context passed as kSecUseAuthenticationContext is not prompted again until `invalidate()` (docs/spec.md §11).
/// Kept in memory only; a token names nothing outside this daemon.
final class EvaluatedContexts: Sendable {
    private struct Evaluation {
        var factors: Set<AuthenticationFactor>
        var domainState: Data?
        /// An open file's answer: it ends with the device's lock, not only with invalidate.
        var untilLock: Bool
    }

    private let evaluations = Mutex<[Data: Evaluation]>([:])
    /// Bounds memory against a client that never invalidates; the oldest go first.
    private static let limit = 4096

    /// Records an evaluation and returns its token.
    func record(_ factors: Set<AuthenticationFactor>, domainState: Data?, untilLock: Bool = false) -> Data {
        let token = Sodium.randomBytes(32)
        evaluations.withLock { e in
            if e.count >= Self.limit, let any = e.keys.first { e[any] = nil }
            e[token] = Evaluation(factors: factors, domainState: domainState, untilLock: untilLock)
        }
        return token
    }

    /// The factors a token holds; biometric ones lapse when the enrolled set changed since.
    func factors(for token: Data, domainState: Data?) -> Set<AuthenticationFactor>? {
        guard let evaluation = evaluations.withLock({ $0[token] }) else { return nil }
        return evaluation.domainState == domainState
            ? evaluation.factors : evaluation.factors.subtracting([.biometryAny, .biometryCurrentSet])
    }

    /// Whether `token` names a live evaluation.
    func contains(_ token: Data) -> Bool { evaluations.withLock { $0[token] != nil } }

    /// The device locked: open files' answers end.
    func dropUntilLock() { evaluations.withLock { e in e = e.filter { !$0.value.untilLock } } }

    func invalidate(_ token: Data) { _ = evaluations.withLock { $0.removeValue(forKey: token) } }
}
